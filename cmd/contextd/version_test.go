package main

import "testing"

func TestPseudoRevision(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{
		"v0.0.0-20261204135152-48ef509abcde":              "48ef509abcde",
		"v0.0.0-20261204135152-48ef509abcde+dirty":        "48ef509abcde",
		"v1.2.4-0.20261204135152-48ef509abcde":            "48ef509abcde",
		"v1.2.4-rc.1.0.20261204135152-48ef509abcde":       "48ef509abcde",
		"v2.0.0-20261204135152-48ef509abcde+incompatible": "48ef509abcde",
		"v0.1.0":                             "",
		"v0.1.0-rc.1":                        "",
		"(devel)":                            "",
		"":                                   "",
		"v0.0.0-2026120413515-48ef509abcde":  "", // short timestamp
		"v0.0.0-20261204135152-48EF509ABCDE": "", // not lower-case hex
		"v0.0.0-20261204135152-48ef509abcd":  "", // 11 characters
	} {
		if got := pseudoRevision(v); got != want {
			t.Errorf("pseudoRevision(%q) = %q, want %q", v, got, want)
		}
	}
}
