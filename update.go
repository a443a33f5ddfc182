package contextd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// maxUpdateAttempts bounds the optimistic-concurrency retries of an update.
const maxUpdateAttempts = 5

// preparedUpdate is a validated update request with its resolved id.
type preparedUpdate struct {
	id       string
	text     *string
	hash     string
	metadata json.RawMessage // full replacement, when set
	hasMeta  bool
	patch    map[string]any
	tags     *[]string
	images   *[]persist.Image
	vis      *string
	gen      *generate.Result // produced before the transaction when text changes
}

// updateWording selects the texts that differ between update_context and
// update_context_batch (batch).
type updateWording struct {
	batch bool
}

// validateUpdate checks everything that needs no database, in the
// documented order.
func (e *Engine) validateUpdate(req UpdateRequest, w updateWording) (*preparedUpdate, error) {
	in := request.UpdateInput{
		Text: req.Text, Metadata: req.Metadata, MetadataPatch: req.MetadataPatch,
		Tags: req.Tags, Visibility: req.Visibility,
	}
	if req.Images != nil {
		imgs := imageInputs(*req.Images)
		in.Images = &imgs
	}
	v, err := request.ValidateUpdate(in, e.requestOptions(Principal{}, w.batch))
	if err != nil {
		return nil, err
	}
	return &preparedUpdate{
		text: v.Text, hash: v.Hash, metadata: v.Metadata, hasMeta: v.HasMeta, patch: v.Patch,
		tags: v.Tags, images: v.Images, vis: v.Visibility,
	}, nil
}

// accessWording holds the access messages of the single and batch forms.
type accessWording struct {
	notFound, notAuthorized string // formats taking the id
}

var (
	singleAccess = accessWording{"Context entry with ID %s not found", "Not authorized to modify context entry with ID %s"}
	batchAccess  = accessWording{"Context entry %s not found", "Not authorized to modify context entry %s"}
)

// checkUpdateAccess decides whether the caller may apply pu to its entry.
func (e *Engine) checkUpdateAccess(ctx context.Context, r persist.Reader, p Principal, acc persist.Access, pu *preparedUpdate, w accessWording) (persist.State, error) {
	st, found, err := r.State(ctx, acc, pu.id)
	if err != nil {
		return st, fmt.Errorf("entry state: %w", err)
	}
	if !found || !st.Readable {
		return st, newErr(ErrNotFound, w.notFound, pu.id)
	}
	if !st.Writable {
		return st, newErr(ErrNotAuthorized, w.notAuthorized, pu.id)
	}
	if pu.vis != nil {
		if st.Owner != p.ID {
			return st, newErr(ErrNotAuthorized, "Only the owner may change the visibility of context %s", pu.id)
		}
		if err := request.CheckVisibility(*pu.vis, e.requestOptions(p, false)); err != nil {
			return st, err
		}
	}
	return st, nil
}

// applyUpdate writes pu at the observed state inside tx and returns the
// updated field names; ok is false when the entry changed concurrently.
func (e *Engine) applyUpdate(ctx context.Context, tx persist.Tx, pu *preparedUpdate, st persist.State) (fields []string, ok bool, err error) {
	u := persist.Update{UpdatedAt: e.now().UTC(), ExpectVersion: st.Version}
	if pu.text != nil {
		summary := ""
		if pu.gen != nil {
			summary = pu.gen.Summary
		}
		u.Text, u.ContentHash, u.Summary = pu.text, &pu.hash, &summary
		u.BumpVersion = true
		fields = append(fields, "text_content")
		if summary != "" {
			fields = append(fields, "summary")
		}
		if pu.gen != nil && pu.gen.EmbHit == generate.EmbeddingGenerated {
			fields = append(fields, "embedding")
		}
	}
	if pu.hasMeta {
		md := pu.metadata
		u.Metadata = &md
		u.BumpVersion = true
		fields = append(fields, "metadata")
	} else if pu.patch != nil {
		merged, err := request.MergePatch(st.Metadata, pu.patch)
		if err != nil {
			return nil, false, err
		}
		u.Metadata = &merged
		fields = append(fields, "metadata")
	}
	if pu.tags != nil {
		u.Tags = pu.tags
		fields = append(fields, "tags")
	}
	if pu.images != nil {
		ct := contentTypeFor(len(*pu.images))
		u.Images, u.ContentType = pu.images, &ct
		fields = append(fields, "images", "content_type")
	}
	if pu.vis != nil {
		u.Visibility = pu.vis
		u.BumpVersion = true
		fields = append(fields, "visibility")
	}
	ok, err = tx.Update(ctx, pu.id, u)
	if ok && err == nil && pu.text != nil {
		if err = pu.gen.WriteEmbeddings(ctx, tx, pu.id, true); err == nil {
			err = pu.gen.WriteNodes(ctx, tx, pu.id)
		}
	}
	return fields, ok, err
}

// Update changes one entry (update_context).
func (e *Engine) Update(ctx context.Context, req UpdateRequest) (*UpdateResponse, error) {
	if err := e.CheckWritable(ctx, "update_context"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	pu, err := e.validateUpdate(req, updateWording{})
	if err != nil {
		return nil, err
	}
	if pu.id, err = resolveID(ctx, e.st, acc, req.ContextID); err != nil {
		return nil, wrapIDErr("Invalid context ID: ", err)
	}
	if _, err := e.checkUpdateAccess(ctx, e.st, p, acc, pu, singleAccess); err != nil {
		return nil, err
	}
	if err := e.generateUpdate(ctx, acc, pu); err != nil {
		return nil, err
	}
	fields, err := e.updateOne(ctx, p, acc, pu, singleAccess)
	if err != nil {
		return nil, err
	}
	return &UpdateResponse{
		Success: true, ContextID: pu.id, UpdatedFields: fields,
		Message: fmt.Sprintf("Successfully updated %d field(s)", len(fields)) + generate.UpdateParts(pu.gen),
	}, nil
}

// updateOne applies pu in its own transaction, retrying when a concurrent
// writer changed the entry between the state read and the write.
func (e *Engine) updateOne(ctx context.Context, p Principal, acc persist.Access, pu *preparedUpdate, w accessWording) ([]string, error) {
	for attempt := 0; attempt < maxUpdateAttempts; attempt++ {
		var fields []string
		var ok bool
		err := e.st.Write(ctx, func(tx persist.Tx) error {
			st, err := e.checkUpdateAccess(ctx, tx, p, acc, pu, w)
			if err != nil {
				return err
			}
			fields, ok, err = e.applyUpdate(ctx, tx, pu, st)
			return err
		})
		if err != nil {
			return nil, passEngineErr("update", err)
		}
		if ok {
			return fields, nil
		}
	}
	return nil, newErr(ErrConflict, "Concurrent modification of context %s: the entry kept changing during the update. Retry the request.", pu.id)
}
