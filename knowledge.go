package contextd

import (
	"context"
	"fmt"
	"time"

	"github.com/contextd/contextd/index/extract"
	"github.com/contextd/contextd/internal/knowledge"
)

// KnowledgeConfig configures the knowledge containers (KNOWLEDGE_*). The
// zero value means the defaults. New containers take
// Config.DefaultVisibility and need Config.PublishRole to be public, as
// any entry.
type KnowledgeConfig struct {
	// Workers is the number of ingestion workers (default min(4, GOMAXPROCS)).
	Workers int
	// MaxUploadBytes caps one decoded file (default 30,000,000).
	MaxUploadBytes int64
	// MinScore is search_knowledge's default minScore (default 0).
	MinScore float64
	// Alpha, when set, weighs the semantic side of Hybrid fusion.
	Alpha *float64
	// Sources are folders mirrored read-only as [source] scopes.
	Sources []KnowledgeSource
	// SourceDebounce is the folder watcher's quiet time before a re-sync
	// (0: the default).
	SourceDebounce time.Duration
	// AdoptAfter is how long a document another process accepted may stay
	// Pending or Processing with no progress before this one ingests it
	// itself, as when that process was killed (default 2 minutes).
	AdoptAfter time.Duration
	// Extract bounds one parse of an uploaded file (index/extract defaults).
	Extract extract.Options
}

// KnowledgeSource is a folder mirrored read-only as a [source] scope.
type KnowledgeSource struct {
	Name string // a container name
	Dir  string // an existing directory
}

// ParseKnowledgeSources reads a KNOWLEDGE_SOURCES value: comma-separated
// name=/path pairs, each name a valid container name used once, each path
// an existing directory.
func ParseKnowledgeSources(v string) ([]KnowledgeSource, error) {
	src, err := knowledge.ParseSources(v)
	if err != nil {
		return nil, err
	}
	out := make([]KnowledgeSource, len(src))
	for i, s := range src {
		out[i] = KnowledgeSource{Name: s.Name, Dir: s.Dir}
	}
	return out, nil
}

// openKnowledge starts the knowledge service on the engine's store and
// change log: its chunk index follows the log like the other indexes.
func (e *Engine) openKnowledge(ctx context.Context) error {
	k := e.cfg.Knowledge
	opt := knowledge.Options{
		Workers: k.Workers, MaxUploadBytes: k.MaxUploadBytes, MinScore: k.MinScore, Alpha: k.Alpha,
		Visibility: e.cfg.DefaultVisibility, PublishRole: e.cfg.PublishRole,
		SourceDebounce: k.SourceDebounce, AdoptAfter: k.AdoptAfter, Extract: k.Extract, Logger: e.log, Now: e.cfg.Now,
	}
	if e.indexPath != "" {
		opt.SnapshotPath = e.indexPath + ".knowledge"
	}
	for _, s := range k.Sources {
		opt.Sources = append(opt.Sources, knowledge.Source{Name: s.Name, Dir: s.Dir})
	}
	svc, err := knowledge.Open(ctx, e.st, e.feed, e.gen.Embedder(), opt)
	if err != nil {
		return fmt.Errorf("knowledge: %w", err)
	}
	e.know = svc
	return nil
}

// closeKnowledge stops the ingestion workers and writes the knowledge
// index snapshot.
func (e *Engine) closeKnowledge() error {
	if e.know == nil {
		return nil
	}
	err := e.know.Close()
	e.know = nil
	return err
}

// KnowledgeService is the engine's knowledge service (containers,
// documents, ingestion and search_knowledge), for this module's tests and
// tools that hold its ingestion (Pause, Resume). The knowledge operations
// themselves are the Engine's methods (knowledge_api.go), which package
// server's knowledge tools call.
func (e *Engine) KnowledgeService() *knowledge.Service { return e.know }
