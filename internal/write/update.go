package write

import (
	"context"
	"fmt"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// maxUpdateAttempts bounds the optimistic-concurrency retries of an update.
const maxUpdateAttempts = 5

// pendingUpdate is a validated update request with its resolved id and
// what generation produced for it before the transaction.
type pendingUpdate struct {
	id string
	*request.Update
	gen *generate.Result // when the text changes
}

// accessWording holds the access messages of the single and batch forms.
type accessWording struct {
	notFound, notAuthorized string // formats taking the id
}

var (
	singleAccess = accessWording{"Context entry with ID %s not found", "Not authorized to modify context entry with ID %s"}
	batchAccess  = accessWording{"Context entry %s not found", "Not authorized to modify context entry %s"}
)

// Updated is the result of Update.
type Updated struct {
	ID      string   // the resolved id
	Fields  []string // the updated field names
	Message string   // the update_context message
}

// Update changes one entry (update_context): rawID is resolved over what
// the caller may read, u was validated by request.ValidateUpdate.
func (w *Writer) Update(ctx context.Context, p Principal, rawID string, u *request.Update) (Updated, error) {
	id, err := request.ResolveID(ctx, w.st, p.access(), rawID)
	if err != nil {
		return Updated{}, request.WrapIDErr("Invalid context ID: ", err)
	}
	pu := &pendingUpdate{id: id, Update: u}
	if _, err := w.checkUpdateAccess(ctx, w.st, p, pu, singleAccess); err != nil {
		return Updated{}, err
	}
	if err := w.generateUpdate(ctx, p, pu); err != nil {
		return Updated{}, err
	}
	fields, err := w.updateOne(ctx, p, pu, singleAccess)
	if err != nil {
		return Updated{}, err
	}
	return Updated{
		ID: id, Fields: fields,
		Message: fmt.Sprintf("Successfully updated %d field(s)", len(fields)) + generate.UpdateParts(pu.gen),
	}, nil
}

// generateUpdate runs generation for an update that changes the text.
func (w *Writer) generateUpdate(ctx context.Context, p Principal, pu *pendingUpdate) error {
	if pu.Text == nil {
		return nil
	}
	source := "user"
	if w.gen.Summarizer() != nil {
		ents, err := w.st.Get(ctx, p.access(), []string{pu.id}, persist.GetOptions{})
		if err != nil {
			return fmt.Errorf("load entry: %w", err)
		}
		if len(ents) == 1 {
			source = ents[0].Source
		}
	}
	g, err := w.gen.Generate(ctx, generate.Job{Text: *pu.Text, Source: source, Update: true})
	if err != nil {
		return err
	}
	pu.gen = g
	return nil
}

// checkUpdateAccess decides whether the caller may apply pu to its entry.
func (w *Writer) checkUpdateAccess(ctx context.Context, r persist.Reader, p Principal, pu *pendingUpdate, wd accessWording) (persist.State, error) {
	st, found, err := r.State(ctx, p.access(), pu.id)
	if err != nil {
		return st, fmt.Errorf("entry state: %w", err)
	}
	if !found || !st.Readable {
		return st, cerrors.New(cerrors.ErrNotFound, wd.notFound, pu.id)
	}
	if !st.Writable {
		return st, cerrors.New(cerrors.ErrNotAuthorized, wd.notAuthorized, pu.id)
	}
	if pu.Visibility != nil {
		if st.Owner != p.ID {
			return st, cerrors.New(cerrors.ErrNotAuthorized, "Only the owner may change the visibility of context %s", pu.id)
		}
		if err := request.CheckVisibility(*pu.Visibility, request.Options{PublishRole: w.o.PublishRole, MayPublish: p.MayPublish}); err != nil {
			return st, err
		}
	}
	return st, nil
}

// applyUpdate writes pu at the observed state inside tx and returns the
// updated field names; ok is false when the entry changed concurrently.
func (w *Writer) applyUpdate(ctx context.Context, tx persist.Tx, pu *pendingUpdate, st persist.State) (fields []string, ok bool, err error) {
	u := persist.Update{UpdatedAt: w.now(), ExpectVersion: st.Version}
	if pu.Text != nil {
		summary := ""
		if pu.gen != nil {
			summary = pu.gen.Summary
		}
		u.Text, u.ContentHash, u.Summary = pu.Text, &pu.Hash, &summary
		u.BumpVersion = true
		fields = append(fields, "text_content")
		if summary != "" {
			fields = append(fields, "summary")
		}
		if pu.gen != nil && pu.gen.EmbHit == generate.EmbeddingGenerated {
			fields = append(fields, "embedding")
		}
	}
	if pu.HasMeta {
		md := pu.Metadata
		u.Metadata = &md
		u.BumpVersion = true
		fields = append(fields, "metadata")
	} else if pu.Patch != nil {
		merged, err := request.MergePatch(st.Metadata, pu.Patch)
		if err != nil {
			return nil, false, err
		}
		u.Metadata = &merged
		fields = append(fields, "metadata")
	}
	if pu.Tags != nil {
		u.Tags = pu.Tags
		fields = append(fields, "tags")
	}
	if pu.Images != nil {
		ct := contentTypeFor(len(*pu.Images))
		u.Images, u.ContentType = pu.Images, &ct
		fields = append(fields, "images", "content_type")
	}
	if pu.Visibility != nil {
		u.Visibility = pu.Visibility
		u.BumpVersion = true
		fields = append(fields, "visibility")
	}
	ok, err = tx.Update(ctx, pu.id, u)
	if ok && err == nil && pu.Text != nil {
		if err = pu.gen.WriteEmbeddings(ctx, tx, pu.id, true); err == nil {
			err = pu.gen.WriteNodes(ctx, tx, pu.id)
		}
	}
	return fields, ok, err
}

// updateOne applies pu in its own transaction, retrying when a concurrent
// writer changed the entry between the state read and the write.
func (w *Writer) updateOne(ctx context.Context, p Principal, pu *pendingUpdate, wd accessWording) ([]string, error) {
	for attempt := 0; attempt < maxUpdateAttempts; attempt++ {
		var fields []string
		var ok bool
		err := w.st.Write(ctx, func(tx persist.Tx) error {
			st, err := w.checkUpdateAccess(ctx, tx, p, pu, wd)
			if err != nil {
				return err
			}
			fields, ok, err = w.applyUpdate(ctx, tx, pu, st)
			return err
		})
		if err != nil {
			return nil, engineErr("update", err)
		}
		if ok {
			return fields, nil
		}
	}
	return nil, cerrors.New(cerrors.ErrConflict, "Concurrent modification of context %s: the entry kept changing during the update. Retry the request.", pu.id)
}
