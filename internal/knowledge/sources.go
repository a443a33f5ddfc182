package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/ingest"
	"github.com/contextd/contextd/persist"
)

// Source is a folder the server mirrors read-only as a [source] scope
// (KNOWLEDGE_SOURCES=name=/path,...).
type Source struct {
	Name string
	Dir  string
}

// DefaultSourceOwner owns the entries of mirrored sources.
const DefaultSourceOwner = "knowledge-sources"

// ParseSources reads KNOWLEDGE_SOURCES: comma-separated name=/path pairs,
// each name a valid container name used once, each path an existing
// directory.
func ParseSources(v string) ([]Source, error) {
	var out []Source
	seen := map[string]bool{}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, dir, ok := strings.Cut(item, "=")
		name, dir = strings.TrimSpace(name), strings.TrimSpace(dir)
		switch {
		case !ok || dir == "":
			return nil, fmt.Errorf("%w: KNOWLEDGE_SOURCES item %q must be name=/path", cerrors.ErrInvalid, item)
		case !ValidName(name):
			return nil, fmt.Errorf("%w: KNOWLEDGE_SOURCES name %q must be 2-128 chars, lowercase alphanumeric and hyphens", cerrors.ErrInvalid, name)
		case seen[name]:
			return nil, fmt.Errorf("%w: KNOWLEDGE_SOURCES names %q twice", cerrors.ErrInvalid, name)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: KNOWLEDGE_SOURCES %s=%s is not a readable directory", cerrors.ErrInvalid, name, dir)
		}
		seen[name] = true
		out = append(out, Source{Name: name, Dir: dir})
	}
	return out, nil
}

// sourceScope is a configured source and its entry.
type sourceScope struct {
	Source
	c *Container
}

// ensureSources finds or creates the entry of every configured source:
// public (every reader may search a source), owned by SourceOwner.
// A source whose name a managed container already has is refused.
func (s *Service) ensureSources(ctx context.Context) ([]sourceScope, error) {
	if len(s.opt.Sources) == 0 {
		return nil, nil
	}
	owner := persist.Access{Principal: s.opt.SourceOwner}
	var out []sourceScope
	for _, src := range s.opt.Sources {
		list, err := s.containers(ctx, s.st, owner)
		if err != nil {
			return nil, err
		}
		var found *Container
		for _, c := range list {
			if c.Name == src.Name {
				found = &c
				break
			}
		}
		if found != nil && found.Kind != KindSource {
			return nil, fmt.Errorf("%w: KNOWLEDGE_SOURCES name %q is taken by a managed container", cerrors.ErrInvalid, src.Name)
		}
		if found == nil {
			now := s.opt.Now().UTC()
			id := s.ids.Next()
			rec := record{Kind: KindSource, Name: src.Name, Description: "Mirror of " + filepath.Base(src.Dir), Dir: src.Dir}
			e, err := newEntry(id, containerThread, owner.Principal, "public", "Knowledge source "+src.Name, rec, now)
			if err != nil {
				return nil, err
			}
			if err := s.st.Write(ctx, func(tx persist.Tx) error { return tx.Insert(ctx, e, nil) }); err != nil {
				return nil, fmt.Errorf("insert source: %w", err)
			}
			found = &Container{ID: id, Kind: KindSource, Name: src.Name, Description: rec.Description,
				Owner: owner.Principal, Visibility: "public", CreatedAt: now}
		}
		found.Writable = true
		out = append(out, sourceScope{Source: src, c: found})
	}
	return out, nil
}

// mirror syncs a source now and after every burst of changes under its
// folder, until ctx ends.
func (s *Service) mirror(ctx context.Context, src sourceScope) {
	sync := func(ctx context.Context) error { return s.SyncSource(ctx, src) }
	if err := sync(ctx); err != nil && ctx.Err() == nil {
		s.log.Error("knowledge source sync failed", "source", src.Name, "error", err)
	}
	err := ingest.Watch(ctx, src.Dir, s.opt.SourceDebounce, sync, func(err error) {
		s.log.Error("knowledge source sync failed", "source", src.Name, "error", err)
	})
	if err != nil && ctx.Err() == nil {
		s.log.Error("knowledge source watch stopped", "source", src.Name, "error", err)
	}
}

// SyncSource makes the documents of src match its folder: new and
// changed files (by digest) are uploaded and ingested, files gone are
// deleted. Files the upload rules refuse (extension, size, name) are
// skipped and logged.
func (s *Service) SyncSource(ctx context.Context, src sourceScope) error {
	files, _, err := ingest.Walk(ctx, src.Dir, ingest.WalkOptions{})
	if err != nil {
		return fmt.Errorf("walk %s: %w", src.Name, err)
	}
	owner := persist.Access{Principal: s.opt.SourceOwner}
	docs, err := s.docs(ctx, owner, src.c, persist.Filter{})
	if err != nil {
		return err
	}
	existing := map[string]string{} // path -> digest
	byPath := map[string]string{}   // path -> id
	for _, d := range docs {
		existing[d.Path], byPath[d.Path] = s.digestOf(ctx, d.ID), d.ID
	}
	keep := map[string]bool{}
	for _, f := range files {
		if !Supported(Ext(f.SourceID)) {
			continue
		}
		p := NormalizePath(f.SourceID)
		keep[p] = true
		data, err := os.ReadFile(f.Path)
		if err != nil {
			s.log.Warn("knowledge source file unreadable", "source", src.Name, "file", f.SourceID, "error", err)
			continue
		}
		sum := sha256.Sum256(data)
		digest := hex.EncodeToString(sum[:])
		if existing[p] == digest {
			continue
		}
		folder, name := ParentPath(p), p[strings.LastIndexByte(p, '/')+1:]
		if _, err := s.Upload(ctx, owner, src.c, File{Name: name, Folder: folder, Data: data, digest: digest}); err != nil {
			s.log.Warn("knowledge source file skipped", "source", src.Name, "file", f.SourceID, "error", err)
		}
	}
	for p, id := range byPath {
		if !keep[p] {
			if err := s.deleteDoc(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// digestOf reads a source document's stored digest.
func (s *Service) digestOf(ctx context.Context, id string) string {
	st, found, err := s.st.State(ctx, persist.Access{}, id)
	if err != nil || !found {
		return ""
	}
	r, _ := decodeRecord(st.Metadata)
	return r.Digest
}

// deleteDoc removes a document entry and its chunks.
func (s *Service) deleteDoc(ctx context.Context, id string) error {
	err := s.st.Write(ctx, func(tx persist.Tx) error {
		if _, err := tx.Delete(ctx, []string{id}); err != nil {
			return fmt.Errorf("delete document: %w", err)
		}
		return nil
	})
	if err == nil {
		s.jobs.cancel(id, math.MaxInt)
	}
	return err
}
