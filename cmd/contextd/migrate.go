package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/internal/compress"
	"github.com/contextd/contextd/internal/migrate"
	"github.com/contextd/contextd/persist"
	"github.com/contextd/contextd/server/setup"
)

const migrateUsage = `usage: contextd migrate compress|decompress|reembed

Migrates the database at DB_PATH (stop the server first):
  compress    store every chunk vector as a TurboQuant code of the
              configured COMPRESSION_* settings (float32 vectors are kept
              beside them only with COMPRESSION_KEEP_FLOAT=true); codes of
              other settings are re-encoded
  decompress  store every chunk vector as float32 again (the kept vector,
              else the reconstruction of its code) and drop the codes;
              then start with ENABLE_EMBEDDING_COMPRESSION=false
  reembed     regenerate every stored vector with the configured
              embedding model (contextd migrate reembed -h)
compress and decompress rewrite 200 entries per transaction: a run that
is interrupted (even by kill -9) resumes when started again. The
in-process vector index is rebuilt afterwards. Configuration errors
exit 78.
`

// runMigrate dispatches contextd migrate's subcommands.
func runMigrate(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		if code, done := parseCommand("migrate", args, migrateUsage, stdout, stderr); done {
			return code
		}
		fmt.Fprint(stderr, "contextd migrate: a subcommand is required\n"+migrateUsage)
		return exitUsage
	}
	sub := args[0]
	usage := migrateUsage
	if sub == "reembed" {
		usage = reembedUsage
	}
	if sub != "reembed" && sub != "compress" && sub != "decompress" {
		fmt.Fprintf(stderr, "contextd migrate: unknown subcommand %q\n%s", sub, migrateUsage)
		return exitUsage
	}
	if code, done := parseCommand("migrate "+sub, args[1:], usage, stdout, stderr); done {
		return code
	}
	if sub == "reembed" {
		return runReembed(ctx, lookupEnv, stderr)
	}
	return runConvert(ctx, sub, lookupEnv, stderr)
}

// runConvert runs migrate compress or decompress on the configured
// database, then opens the engine once so the in-process vector index is
// rebuilt from the converted vectors (and the start-up check passes).
func runConvert(ctx context.Context, sub string, lookupEnv func(string) (string, bool), stderr io.Writer) int {
	cfg, err := setup.FromEnv(lookupEnv)
	if err != nil {
		fmt.Fprintf(stderr, "contextd: configuration error: %v\n", err)
		return exitConfig
	}
	ec := cfg.Engine
	if ec.Embedding.Embedder == nil {
		fmt.Fprintf(stderr, "contextd: migrate %s: embedding generation is disabled (ENABLE_EMBEDDING_GENERATION=false)\n", sub)
		return exitConfig
	}
	comp := ec.Embedding.Compression
	if sub == "compress" && comp.Disabled {
		fmt.Fprintln(stderr, "contextd: migrate compress: ENABLE_EMBEDDING_COMPRESSION=false; enable it to choose the codes to store")
		return exitConfig
	}
	if sub == "decompress" && !comp.Disabled {
		fmt.Fprintln(stderr, "contextd: migrate decompress: set ENABLE_EMBEDDING_COMPRESSION=false as the server will run after it")
		return exitConfig
	}
	code := convertStore(ctx, sub, ec, stderr)
	if code != exitOK {
		return code
	}
	ec.FTS.Disable = true // the full-text index is unchanged
	eng, err := contextd.Open(ctx, ec)
	if err != nil {
		msg, _ := openFailure(ec, err)
		fmt.Fprintf(stderr, "contextd: migrate %s: rebuild the vector index: %s\n", sub, msg)
		return exitFail
	}
	if err := eng.Close(); err != nil {
		fmt.Fprintf(stderr, "contextd: migrate %s: rebuild the vector index: %v\n", sub, err)
		return exitFail
	}
	return exitOK
}

// convertStore opens the database by itself (the engine's start-up check
// refuses it until it is converted) and converts its vectors.
func convertStore(ctx context.Context, sub string, ec contextd.Config, stderr io.Writer) int {
	oc := ec.Storage
	if oc.Backend == "" {
		oc.Backend = contextd.DefaultStorageBackend
	}
	if oc.Path == "" && oc.URL == "" {
		oc.Path = ec.DBPath
		if oc.Path == "" {
			p, err := contextd.DefaultDBPath()
			if err != nil {
				fmt.Fprintf(stderr, "contextd: %v\n", err)
				return exitConfig
			}
			oc.Path = p
		}
	}
	st, err := persist.Open(ctx, oc)
	if err != nil {
		msg, code := openFailure(ec, err)
		fmt.Fprintf(stderr, "contextd: %s\n", msg)
		return code
	}
	defer st.Close()
	em := ec.Embedding.Embedder
	if m, ok, err := st.EmbeddingModel(ctx); err != nil || ok && m.Dim != em.Dim() {
		if err == nil {
			err = fmt.Errorf("%w: the stored vectors have %d dimensions, the configured model %d; run `%s` instead",
				contextd.ErrEmbeddingModelChanged, m.Dim, em.Dim(), contextd.ReembedCommand)
		}
		fmt.Fprintf(stderr, "contextd: migrate %s: %v\n", sub, err)
		if errors.Is(err, contextd.ErrEmbeddingModelChanged) {
			return exitConfig
		}
		return exitFail
	}
	o := migrate.Options{Progress: stderr}
	var res migrate.Result
	if sub == "compress" {
		c, cerr := compress.New(ec.Embedding.Compression, em.Dim())
		if cerr != nil {
			fmt.Fprintf(stderr, "contextd: configuration error: %v\n", cerr)
			return exitConfig
		}
		res, err = migrate.Compress(ctx, st, c, o)
	} else {
		res, err = migrate.Decompress(ctx, st, o)
	}
	if err != nil {
		fmt.Fprintf(stderr, "contextd: %v\n", err)
		return exitFail
	}
	fmt.Fprintf(stderr, "contextd: migrate %s: %d chunk vectors, %d rewritten, in %s\n", sub, res.Chunks, res.Rewritten, res.Elapsed.Round(1e6))
	return exitOK
}
