package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWordNetGraph: synsets of WordNet's data format give synonyms, a
// hypernym pointer gives a relation both ways, adjective satellites are
// adjectives, and inflected forms find their lemmas through the .exc
// files and the detachment rules.
func TestWordNetGraph(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"data.noun": "  1 licence header line\n" +
			"00000001 04 n 02 upgrade 0 migration 0 001 @ 00000002 n 0000 | a gloss\n" +
			"00000002 04 n 01 change 0 000 | another gloss\n",
		"data.verb": "00000003 30 v 02 fail 0 go_wrong 0 000 01 + 02 00 | gloss\n",
		"data.adj":  "00000004 00 s 02 quick(a) 0 fast 0 000 | gloss\n",
		"data.adv":  "",
		"noun.exc":  "mice mouse\n",
		"verb.exc":  "ran run\n",
		"adj.exc":   "",
		"adv.exc":   "",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wn, err := loadWordNet(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !wn.syn["upgrade"]["migration"] || !wn.syn["quick"]["fast"] || !wn.syn["fail"]["go_wrong"] {
		t.Fatalf("synonyms missing: %v", wn.syn)
	}
	if wn.syn["upgrade"]["upgrade"] {
		t.Fatal("a word is its own synonym")
	}
	if !wn.rel["upgrade"]["change"] || !wn.rel["change"]["migration"] {
		t.Fatalf("hypernym relation missing either way: %v", wn.rel)
	}
	for w, want := range map[string][]string{
		"failed": {"fail"}, "upgrades": {"upgrade"}, "ran": {"run"}, "migration": {"migration"}, "xyzzy": nil,
	} {
		if got := wn.lemmas(w); !slices.Equal(got, want) {
			t.Errorf("lemmas(%q) = %v, want %v", w, got, want)
		}
	}
}
