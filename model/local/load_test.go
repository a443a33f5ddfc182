package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/wordvec"
)

// copyFolder copies the fixture folder src into a temporary folder,
// leaving out the files named in skip.
func copyFolder(t *testing.T, src string, skip ...string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		for _, s := range skip {
			if rel == s && d.IsDir() {
				return filepath.SkipDir
			}
			if rel == s {
				return nil
			}
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestLoadBareEncoder: a folder without modules.json is a bare encoder,
// pooled by the mean without normalisation, as sentence-transformers
// reads one: its vectors normalised are the mean-norm model's.
func TestLoadBareEncoder(t *testing.T) {
	src := filepath.Join("testdata", "mean-norm")
	bare, err := Load(copyFolder(t, src, "modules.json", "config_sentence_transformers.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load(src, Options{PassagePrefix: new("")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	texts := []string{"The car engine failure in winter", "hello"}
	a, _ := bare.Embed(ctx, texts)
	b, _ := full.Embed(ctx, texts)
	for i := range texts {
		var norm2 float64
		for _, x := range a[i] {
			norm2 += float64(x) * float64(x)
		}
		if norm2 > 0.99 && norm2 < 1.01 {
			t.Fatalf("bare vector %d has length^2 %v: it was normalised", i, norm2)
		}
		wordvec.Normalize(a[i])
		closeVec(t, texts[i], a[i], toF64(b[i]))
	}
}

// TestLoadErrors: each broken folder is refused with a *FolderError that
// names the file at fault and wraps the right sentinel.
func TestLoadErrors(t *testing.T) {
	src := filepath.Join("testdata", "mean-norm")
	write := func(dir, name, text string) string {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name, dir, file string
		kind            error
	}{
		{"no weights", copyFolder(t, src, "model.safetensors"), "model.safetensors", cerrors.ErrMalformed},
		{"no tokenizer", copyFolder(t, src, "vocab.txt"), "tokenizer", cerrors.ErrMalformed},
		{"no pooling config", copyFolder(t, src, "1_Pooling"), "1_Pooling/config.json", cerrors.ErrMalformed},
		{"bad modules.json", write(copyFolder(t, src), "modules.json", "{"), "modules.json", cerrors.ErrMalformed},
		{"dense module", write(copyFolder(t, src), "modules.json", `[{"path":"","type":"sentence_transformers.models.Transformer"},{"path":"2_Dense","type":"sentence_transformers.models.Dense"}]`), "modules.json", cerrors.ErrUnsupported},
		{"two pooling modes", write(copyFolder(t, src), "1_Pooling/config.json", `{"pooling_mode_cls_token":true,"pooling_mode_mean_tokens":true}`), "1_Pooling/config.json", cerrors.ErrUnsupported},
		{"heads", write(copyFolder(t, src), "config.json", `{"model_type":"bert","hidden_size":32,"num_attention_heads":5,"num_hidden_layers":2,"intermediate_size":64,"vocab_size":276,"max_position_embeddings":64}`), "config.json", cerrors.ErrMalformed},
		{"shape", write(copyFolder(t, src), "config.json", `{"model_type":"bert","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,"intermediate_size":128,"vocab_size":276,"max_position_embeddings":64}`), "model.safetensors", cerrors.ErrMalformed},
		{"activation", write(copyFolder(t, src), "config.json", `{"model_type":"bert","hidden_act":"swish","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,"intermediate_size":64,"vocab_size":276,"max_position_embeddings":64}`), "config.json", cerrors.ErrUnsupported},
		{"distilbert", write(copyFolder(t, src), "config.json", `{"model_type":"distilbert"}`), "config.json", cerrors.ErrUnsupported},
		{"cross-encoder", filepath.Join("testdata", "cross"), "config.json", cerrors.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.dir, Options{})
			var fe *FolderError
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.file) || fe.Fix == "" {
				t.Fatalf("err = %v, want a %v naming %s with a fix", err, tc.kind, tc.file)
			}
		})
	}
	if _, err := LoadCrossEncoder(src); !errors.Is(err, cerrors.ErrUnsupported) {
		t.Fatalf("a sentence model as cross-encoder: %v", err)
	}
}
