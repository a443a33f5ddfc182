package local

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad writes a fuzzed config.json (and a fuzzed 1_Pooling/config.json)
// beside the fixture's other files and loads the folder: whatever the
// files say, Load returns a model or an error, never panics, and a model
// it returns embeds a text. The seeds are the fixtures' own files and
// edits that break one rule each.
func FuzzLoad(f *testing.F) {
	src := filepath.Join("testdata", "mean-norm")
	cfg, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		f.Fatal(err)
	}
	pool, err := os.ReadFile(filepath.Join(src, "1_Pooling", "config.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(cfg, pool)
	f.Add([]byte(`{"model_type":"bert","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":2,"intermediate_size":64,"vocab_size":276,"max_position_embeddings":64}`), pool)
	f.Add([]byte(`{"model_type":"bert","hidden_size":32,"num_attention_heads":3}`), pool)
	f.Add([]byte(`{"model_type":"bert","hidden_size":-32,"num_attention_heads":-4,"num_hidden_layers":2,"intermediate_size":64,"vocab_size":276,"max_position_embeddings":1}`), pool)
	f.Add([]byte(`{"model_type":"bert","hidden_size":32,"num_attention_heads":4,"num_hidden_layers":3,"intermediate_size":64,"vocab_size":10,"max_position_embeddings":64,"type_vocab_size":0}`), []byte(`{"pooling_mode_cls_token":true,"pooling_mode_max_tokens":true}`))
	f.Add([]byte(`{"model_type":"roberta"}`), []byte(`{}`))
	f.Add([]byte(`[`), []byte(`null`))
	files := []string{"vocab.txt", "modules.json", "model.safetensors", "sentence_bert_config.json", "tokenizer_config.json"}
	blobs := map[string][]byte{}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			f.Fatal(err)
		}
		blobs[name] = b
	}
	f.Fuzz(func(t *testing.T, cfg, pool []byte) {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "1_Pooling"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range blobs {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), pool, 0o644); err != nil {
			t.Fatal(err)
		}
		em, err := Load(dir, Options{})
		if err != nil {
			return
		}
		if _, err := em.Embed(context.Background(), []string{"the car engine failure in winter", ""}); err != nil {
			t.Fatalf("a loaded model failed to embed: %v", err)
		}
	})
}
