package write

import (
	"context"
	"errors"
	"fmt"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// pendingStore is a validated store request with what generation produced
// for it before the transaction.
type pendingStore struct {
	*request.Store
	gen *generate.Result
}

// outcome is what one stored entry became.
type outcome struct {
	id     string
	merged bool
	// embStored is false when a merge kept the candidate's vectors.
	embStored bool
}

// Stored is the result of Store.
type Stored struct {
	// ID is the new entry, or the entry the request merged into.
	ID string
	// Merged says deduplication merged the request into the caller's
	// latest identical entry of the thread.
	Merged bool
	// Message is the store_context message.
	Message string
}

// Store stores one validated entry (store_context): generation first, then
// a deduplication merge or an insert in one transaction.
func (w *Writer) Store(ctx context.Context, p Principal, s *request.Store) (Stored, error) {
	ps := &pendingStore{Store: s}
	if err := w.generateStore(ctx, p, ps, true); err != nil {
		return Stored{}, err
	}
	var out outcome
	var err error
	for attempt := 0; ; attempt++ {
		err = w.st.Write(ctx, func(tx persist.Tx) error {
			out, err = w.storeTx(ctx, tx, p, ps)
			return err
		})
		if !errors.Is(err, generate.ErrRegenerate) || attempt > 0 {
			break
		}
		if err := w.generateStore(ctx, p, ps, false); err != nil {
			return Stored{}, err
		}
	}
	if err != nil {
		return Stored{}, engineErr("store", err)
	}
	msg := "Context stored"
	if out.merged {
		msg = "Context updated"
	}
	if n := len(ps.Images); n > 0 {
		msg += fmt.Sprintf(" with %d images", n)
	}
	msg += generate.StoreParts(ps.gen, out.merged, out.embStored)
	return Stored{ID: out.id, Merged: out.merged, Message: msg}, nil
}

// generateStore runs generation for a pending store. With precheck, a
// merge into a candidate that already has a summary reuses it.
func (w *Writer) generateStore(ctx context.Context, p Principal, ps *pendingStore, precheck bool) error {
	job := generate.Job{Text: ps.Text, Source: ps.Source}
	if precheck && ps.Dedup && (w.gen.Summarizer() != nil || w.gen.Embedder() != nil) {
		cand, interleaved, err := w.st.DedupCandidate(ctx, p.access(), ps.ThreadID, ps.Source)
		if err != nil {
			return fmt.Errorf("deduplication pre-check: %w", err)
		}
		if cand != nil && !interleaved && cand.Owner == p.ID && sameText(cand, ps.Store) {
			if job, err = w.gen.Reuse(ctx, w.st, job, cand); err != nil {
				return fmt.Errorf("deduplication pre-check: %w", err)
			}
		}
	}
	g, err := w.gen.Generate(ctx, job)
	if err != nil {
		return err
	}
	ps.gen = g
	return nil
}

// storeTx writes one pending entry inside tx: a deduplication merge into
// the caller's latest identical entry, or an insert.
func (w *Writer) storeTx(ctx context.Context, tx persist.Tx, p Principal, ps *pendingStore) (outcome, error) {
	now := w.now()
	if ps.Dedup {
		cand, interleaved, err := tx.DedupCandidate(ctx, p.access(), ps.ThreadID, ps.Source)
		if err != nil {
			return outcome{}, err
		}
		if cand != nil && !interleaved && cand.Owner == p.ID && sameText(cand, ps.Store) {
			u := persist.Update{
				ContentHash:   &ps.Hash,
				BumpVersion:   true,
				UpdatedAt:     now,
				ExpectVersion: cand.Version,
				ExpectHash:    &cand.ContentHash,
			}
			if ps.Metadata != nil {
				md := ps.Metadata
				u.Metadata = &md
			}
			if ps.Tags != nil {
				tags := ps.Tags
				u.Tags = &tags
			}
			if ps.Images != nil {
				imgs := ps.Images
				ct := contentTypeFor(len(imgs))
				u.Images, u.ContentType = &imgs, &ct
			}
			if ps.gen != nil && ps.gen.Outcome == generate.SummaryGenerated {
				u.Summary = &ps.gen.Summary
			}
			ok, err := tx.Update(ctx, cand.ID, u)
			if err != nil {
				return outcome{}, err
			}
			if ok {
				stored, err := ps.gen.MergeEmbeddings(ctx, tx, cand.ID)
				if err != nil {
					return outcome{}, err
				}
				return outcome{id: cand.ID, merged: true, embStored: stored}, ps.gen.WriteNodes(ctx, tx, cand.ID)
			}
		}
	}
	if ps.gen.Reuses() {
		return outcome{}, generate.ErrRegenerate // the pre-checked merge did not happen
	}
	ent := &persist.Entry{
		ID:          w.o.NewID(),
		ThreadID:    ps.ThreadID,
		Source:      ps.Source,
		ContentType: contentTypeFor(len(ps.Images)),
		Text:        ps.Text,
		Metadata:    ps.Metadata,
		ContentHash: ps.Hash,
		Owner:       p.ID,
		Visibility:  ps.Visibility,
		CreatedAt:   now,
		UpdatedAt:   now,
		Tags:        ps.Tags,
		Images:      ps.Images,
	}
	var grants []persist.Grant
	if w.o.AuthorGroupGrants {
		for _, g := range p.Groups {
			grants = append(grants, persist.Grant{PrincipalType: PrincipalGroup, PrincipalID: g, Permission: PermissionRead, GrantedBy: p.ID, CreatedAt: now})
		}
	}
	if ps.gen != nil {
		ent.Summary = ps.gen.Summary
	}
	if err := tx.Insert(ctx, ent, grants); err != nil {
		return outcome{}, err
	}
	if err := ps.gen.WriteEmbeddings(ctx, tx, ent.ID, false); err != nil {
		return outcome{}, err
	}
	return outcome{id: ent.ID, embStored: true}, ps.gen.WriteNodes(ctx, tx, ent.ID)
}

// sameText compares by content hash, falling back to the text of legacy
// rows that have none.
func sameText(cand *persist.Entry, s *request.Store) bool {
	if cand.ContentHash != "" {
		return cand.ContentHash == s.Hash
	}
	return cand.Text == s.Text
}

func contentTypeFor(images int) string {
	if images > 0 {
		return "multimodal"
	}
	return "text"
}
