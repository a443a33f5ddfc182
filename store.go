package contextd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contextd/contextd/internal/generate"
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

func contentHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// prepareStore validates a store request in the documented order.
// batch selects the wording the batch tools use.
func (e *Engine) prepareStore(p Principal, req StoreRequest, batch bool) (*preparedStore, error) {
	ps := &preparedStore{source: req.Source, dedup: req.Deduplicate == nil || *req.Deduplicate}
	if ps.source != "user" && ps.source != "agent" {
		return nil, invalidf(`Missing or invalid source (must be "user" or "agent")`)
	}
	ps.threadID = pyStrip(req.ThreadID)
	ps.text = pyStrip(req.Text)
	if ps.threadID == "" {
		return nil, invalidf("thread_id cannot be empty or whitespace")
	}
	if ps.text == "" {
		return nil, invalidf("text cannot be empty or whitespace")
	}
	ps.visibility = req.Visibility
	if ps.visibility == "" {
		ps.visibility = e.cfg.DefaultVisibility
	}
	if err := e.checkVisibility(p, ps.visibility); err != nil {
		return nil, err
	}
	if req.Images != nil {
		imgs, err := e.decodeImages(req.Images, batch)
		if err != nil {
			return nil, err
		}
		ps.images = imgs
	}
	if err := checkMetadataValues("metadata", anyMap(req.Metadata)); err != nil {
		return nil, err
	}
	if err := checkStorable("thread_id", ps.threadID); err != nil {
		return nil, err
	}
	if err := checkStorable("text", ps.text); err != nil {
		return nil, err
	}
	for _, t := range req.Tags {
		if err := checkStorable("tags", t); err != nil {
			return nil, err
		}
	}
	if err := checkTagCaps(req.Tags); err != nil {
		return nil, err
	}
	ps.tags = normalizeTags(req.Tags)
	if n := runeLen(ps.threadID); n > maxThreadIDLen {
		return nil, invalidf("thread_id is too long: %d characters, maximum is %d characters", n, maxThreadIDLen)
	}
	if req.Metadata != nil {
		if err := e.checkIndexedFields(req.Metadata); err != nil {
			return nil, err
		}
		raw, err := json.Marshal(req.Metadata)
		if err != nil {
			return nil, invalidf("metadata: %v", err)
		}
		ps.metadata = raw
	}
	ps.hash = contentHash(ps.text)
	return ps, nil
}

// anyMap keeps a nil map a nil interface, so absent metadata checks nothing.
func anyMap(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// checkVisibility validates a visibility value and the publish gate.
func (e *Engine) checkVisibility(p Principal, v string) error {
	if v != VisibilityPrivate && v != VisibilityPublic {
		return invalidf("visibility must be one of 'private', 'public'")
	}
	if v == VisibilityPublic && e.cfg.PublishRole != "" && !p.hasRole(e.cfg.PublishRole) {
		return invalidf("Setting visibility 'public' requires the '%s' role (ACCESS_CONTROL_PUBLISH_ROLE), which the caller does not have", e.cfg.PublishRole)
	}
	return nil
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
