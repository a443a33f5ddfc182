package contextd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// preparedStore is a validated store request, ready for the transaction.
type preparedStore struct {
	threadID, source, text string
	hash                   string
	visibility             string
	metadata               json.RawMessage // nil = absent
	tags                   []string        // nil = absent
	images                 []persist.Image // nil = absent
	dedup                  bool
	gen                    *generate.Result // produced before the transaction
}

// prepareStore validates a store request in the documented order.
// batch selects the wording the batch tools use.
func (e *Engine) prepareStore(p Principal, req StoreRequest, batch bool) (*preparedStore, error) {
	v, err := request.ValidateStore(request.StoreInput{
		ThreadID: req.ThreadID, Source: req.Source, Text: req.Text, Images: imageInputs(req.Images),
		Metadata: req.Metadata, Tags: req.Tags, Visibility: req.Visibility, Deduplicate: req.Deduplicate,
	}, e.requestOptions(p, batch))
	if err != nil {
		return nil, err
	}
	return &preparedStore{
		threadID: v.ThreadID, source: v.Source, text: v.Text, hash: v.Hash, visibility: v.Visibility,
		metadata: v.Metadata, tags: v.Tags, images: v.Images, dedup: v.Dedup,
	}, nil
}

// storeOutcome is what one stored entry became.
type storeOutcome struct {
	id     string
	merged bool
	// embStored is false when a merge kept the candidate's vectors.
	embStored bool
}

// storeTx writes one prepared entry inside tx: a deduplication merge into
// the caller's latest identical entry, or an insert.
func (e *Engine) storeTx(ctx context.Context, tx persist.Tx, p Principal, acc persist.Access, ps *preparedStore) (storeOutcome, error) {
	now := e.now().UTC()
	if ps.dedup {
		cand, interleaved, err := tx.DedupCandidate(ctx, acc, ps.threadID, ps.source)
		if err != nil {
			return storeOutcome{}, err
		}
		if cand != nil && !interleaved && cand.Owner == p.ID && sameText(cand, ps) {
			u := persist.Update{
				ContentHash:   &ps.hash,
				BumpVersion:   true,
				UpdatedAt:     now,
				ExpectVersion: cand.Version,
				ExpectHash:    &cand.ContentHash,
			}
			if ps.metadata != nil {
				md := ps.metadata
				u.Metadata = &md
			}
			if ps.tags != nil {
				tags := ps.tags
				u.Tags = &tags
			}
			if ps.images != nil {
				imgs := ps.images
				ct := contentTypeFor(len(imgs))
				u.Images, u.ContentType = &imgs, &ct
			}
			if ps.gen != nil && ps.gen.Outcome == generate.SummaryGenerated {
				u.Summary = &ps.gen.Summary
			}
			ok, err := tx.Update(ctx, cand.ID, u)
			if err != nil {
				return storeOutcome{}, err
			}
			if ok {
				stored, err := ps.gen.MergeEmbeddings(ctx, tx, cand.ID)
				if err != nil {
					return storeOutcome{}, err
				}
				return storeOutcome{id: cand.ID, merged: true, embStored: stored}, ps.gen.WriteNodes(ctx, tx, cand.ID)
			}
		}
	}
	if ps.gen.Reuses() {
		return storeOutcome{}, generate.ErrRegenerate // the pre-checked merge did not happen
	}
	ent := &persist.Entry{
		ID:          e.newID(),
		ThreadID:    ps.threadID,
		Source:      ps.source,
		ContentType: contentTypeFor(len(ps.images)),
		Text:        ps.text,
		Metadata:    ps.metadata,
		ContentHash: ps.hash,
		Owner:       p.ID,
		Visibility:  ps.visibility,
		CreatedAt:   now,
		UpdatedAt:   now,
		Tags:        ps.tags,
		Images:      ps.images,
	}
	var grants []persist.Grant
	if e.cfg.DefaultGroupGrants == "author_groups" {
		for _, g := range p.Groups {
			grants = append(grants, persist.Grant{PrincipalType: "group", PrincipalID: g, Permission: "read", GrantedBy: p.ID, CreatedAt: now})
		}
	}
	if ps.gen != nil {
		ent.Summary = ps.gen.Summary
	}
	if err := tx.Insert(ctx, ent, grants); err != nil {
		return storeOutcome{}, err
	}
	if err := ps.gen.WriteEmbeddings(ctx, tx, ent.ID, false); err != nil {
		return storeOutcome{}, err
	}
	return storeOutcome{id: ent.ID, embStored: true}, ps.gen.WriteNodes(ctx, tx, ent.ID)
}

// sameText compares by content hash, falling back to the text of legacy
// rows that have none.
func sameText(cand *persist.Entry, ps *preparedStore) bool {
	if cand.ContentHash != "" {
		return cand.ContentHash == ps.hash
	}
	return cand.Text == ps.text
}

func contentTypeFor(images int) string {
	if images > 0 {
		return "multimodal"
	}
	return "text"
}

// Store stores one entry (store_context).
func (e *Engine) Store(ctx context.Context, req StoreRequest) (*StoreResponse, error) {
	if err := e.CheckWritable(ctx, "store_context"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := e.prepareStore(p, req, false)
	if err != nil {
		return nil, err
	}
	if err := e.generateStore(ctx, p, acc, ps, true); err != nil {
		return nil, err
	}
	var out storeOutcome
	for attempt := 0; ; attempt++ {
		err = e.st.Write(ctx, func(tx persist.Tx) error {
			out, err = e.storeTx(ctx, tx, p, acc, ps)
			return err
		})
		if !errors.Is(err, generate.ErrRegenerate) || attempt > 0 {
			break
		}
		if err := e.generateStore(ctx, p, acc, ps, false); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, passEngineErr("store", err)
	}
	msg := "Context stored"
	if out.merged {
		msg = "Context updated"
	}
	if n := len(ps.images); n > 0 {
		msg += fmt.Sprintf(" with %d images", n)
	}
	msg += generate.StoreParts(ps.gen, out.merged, out.embStored)
	return &StoreResponse{Success: true, ContextID: out.id, ThreadID: ps.threadID, Message: msg}, nil
}
