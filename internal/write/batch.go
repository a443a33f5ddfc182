package write

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/internal/request"
	"github.com/contextd/contextd/persist"
)

// CheckBatchSize refuses a batch of n items outside 1 to request.MaxBatch;
// what names the items ("entries", "updates"). Callers check it before
// they validate the items.
func CheckBatchSize(what string, n int) error {
	if n == 0 || n > request.MaxBatch {
		return cerrors.Invalidf("%s must hold 1 to %d %s, got %d", what, request.MaxBatch, what, n)
	}
	return nil
}

// Batch is the result of StoreBatch and UpdateBatch: one ItemResult per
// item, in order.
type Batch struct {
	Items     []ItemResult
	Succeeded int
	Message   string
}

// ItemResult is what became of one batch item; it succeeded when Err is nil.
type ItemResult struct {
	// ID is the stored entry ("" when a store failed); for an update, the
	// resolved id, or the id as the caller sent it when resolving failed.
	ID string
	// Fields are the updated field names of an applied update.
	Fields []string
	Err    error
}

// StoreItem is one entry of a store batch: its validated request, or the
// error that failed its validation.
type StoreItem struct {
	Store *request.Store
	Err   error
}

// StoreBatch stores the valid items in order (store_context_batch). An
// atomic batch refuses any invalid item and writes everything in one
// transaction; otherwise each entry is its own transaction and the results
// say which failed.
func (w *Writer) StoreBatch(ctx context.Context, p Principal, items []StoreItem, atomic bool) (*Batch, error) {
	total := len(items)
	prepared := make([]*pendingStore, total)
	b := &Batch{Items: make([]ItemResult, total)}
	invalid, first := 0, -1
	for i, item := range items {
		if item.Err != nil {
			b.Items[i].Err = item.Err
			invalid++
			if first < 0 {
				first = i
			}
		} else {
			prepared[i] = &pendingStore{Store: item.Store}
		}
	}
	if atomic && invalid > 0 {
		return nil, cerrors.Invalidf("Validation failed for %d entries. First error at index %d: %s", invalid, first, items[first].Err)
	}
	if invalid == total {
		b.Message = "All entries failed validation"
		return b, nil
	}
	// Generation runs for every entry at once; the model seams bound the
	// concurrent calls.
	genErrs := make([]error, total)
	var wg sync.WaitGroup
	for i, ps := range prepared {
		if ps == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			genErrs[i] = w.generateStore(ctx, p, ps, false)
		}()
	}
	wg.Wait()
	for i, err := range genErrs {
		if err == nil {
			continue
		}
		if atomic {
			return nil, err
		}
		b.Items[i].Err, prepared[i] = err, nil
	}
	outs := make([]outcome, total)
	if atomic {
		err := w.st.Write(ctx, func(tx persist.Tx) error {
			for i, ps := range prepared {
				// A store may send entry i's statements later (the
				// PostgreSQL pipeline): the marked context makes their
				// failure name entry i wherever it surfaces.
				out, err := w.storeTx(persist.WithItem(ctx, i), tx, p, ps)
				if err != nil {
					return persist.AtItem(i, err)
				}
				outs[i] = out
			}
			return nil
		})
		if err != nil {
			return nil, engineErr("store batch", err)
		}
	} else {
		for i, ps := range prepared {
			if ps == nil {
				continue
			}
			err := w.st.Write(ctx, func(tx persist.Tx) error {
				var err error
				outs[i], err = w.storeTx(ctx, tx, p, ps)
				return err
			})
			if err != nil {
				b.Items[i].Err, prepared[i] = err, nil
			}
		}
	}
	var stored []generate.Stored
	for i, ps := range prepared {
		if ps != nil {
			b.Items[i].ID = outs[i].id
			b.Succeeded++
			stored = append(stored, generate.Stored{Result: ps.gen, Merged: outs[i].merged, EmbStored: outs[i].embStored})
		}
	}
	b.Message = fmt.Sprintf("Stored %d/%d entries successfully", b.Succeeded, total) + generate.BatchStoreParts(stored)
	return b, nil
}

// UpdateItem is one item of an update batch.
type UpdateItem struct {
	// ContextID is the id as the caller sent it.
	ContextID string
	// DecodeErr is the transport's type error, reported before the id.
	DecodeErr error
	// Update is the validated request; Err, when set, failed validation
	// and is reported after the id checks.
	Update *request.Update
	Err    error
}

// prepare resolves and checks one batch item in the documented order.
func (w *Writer) prepare(ctx context.Context, acc persist.Access, item UpdateItem) (*pendingUpdate, error) {
	if item.DecodeErr != nil {
		return nil, item.DecodeErr
	}
	if pyfmt.Strip(item.ContextID) == "" {
		return nil, cerrors.Invalidf("context_id must be a non-empty string")
	}
	id, err := request.ResolveID(ctx, w.st, acc, item.ContextID)
	if err != nil {
		return nil, request.WrapIDErr("Invalid context_id: ", err)
	}
	if item.Err != nil {
		return nil, item.Err
	}
	return &pendingUpdate{id: id, Update: item.Update}, nil
}

// UpdateBatch applies the valid updates in order (update_context_batch).
// An atomic batch refuses any invalid item and applies everything in one
// transaction, failing on the first refused or concurrently changed entry;
// otherwise each update is its own transaction with conflict retries.
func (w *Writer) UpdateBatch(ctx context.Context, p Principal, items []UpdateItem, atomic bool) (*Batch, error) {
	acc := p.access()
	total := len(items)
	prepared := make([]*pendingUpdate, total)
	b := &Batch{Items: make([]ItemResult, total)}
	invalid, first := 0, -1
	for i, item := range items {
		var err error
		prepared[i], err = w.prepare(ctx, acc, item)
		b.Items[i] = ItemResult{ID: item.ContextID, Err: err}
		if err != nil {
			invalid++
			if first < 0 {
				first = i
			}
		} else {
			b.Items[i].ID = prepared[i].id
		}
	}
	if atomic && invalid > 0 {
		return nil, cerrors.Invalidf("Validation failed for %d entries. First error at context_id %s: %s", invalid, items[first].ContextID, b.Items[first].Err)
	}
	if invalid == total {
		b.Message = "All updates failed validation"
		return b, nil
	}
	for i, pu := range prepared {
		if pu == nil || pu.Text == nil {
			continue
		}
		if _, err := w.checkUpdateAccess(ctx, w.st, p, pu, batchAccess); err != nil {
			continue // reported by the transaction in order
		}
		if err := w.generateUpdate(ctx, p, pu); err != nil {
			if atomic {
				return nil, err
			}
			b.Items[i].Err, prepared[i] = err, nil
		}
	}
	if atomic {
		fields := make([][]string, total)
		err := w.st.Write(ctx, func(tx persist.Tx) error {
			for i, pu := range prepared {
				// As in StoreBatch: a statement the PostgreSQL pipeline
				// sends later still fails as entry i's.
				ictx := persist.WithItem(ctx, i)
				st, err := w.checkUpdateAccess(ictx, tx, p, pu, batchAccess)
				if err != nil {
					var ie *persist.ItemError
					if errors.As(err, &ie) {
						return ie // an earlier entry's write failed during this read
					}
					return atIndex(err, i)
				}
				f, ok, err := w.applyUpdate(ictx, tx, pu, st)
				if err != nil {
					return persist.AtItem(i, err)
				}
				if !ok {
					return cerrors.New(cerrors.ErrConflict, "Concurrent modification during atomic batch update: context %s changed at index %d. Retry the request.", pu.id, i)
				}
				fields[i] = f
			}
			return nil
		})
		if err != nil {
			return nil, engineErr("update batch", err)
		}
		for i := range fields {
			b.Items[i].Fields = fields[i]
		}
		b.Succeeded = total
	} else {
		for i, pu := range prepared {
			if pu == nil {
				continue
			}
			f, err := w.updateOne(ctx, p, pu, batchAccess)
			if err != nil {
				b.Items[i].Err, prepared[i] = err, nil
				continue
			}
			b.Items[i].Fields = f
			b.Succeeded++
		}
	}
	if b.Succeeded == 0 {
		b.Message = "All updates failed validation or entry not found"
		return b, nil
	}
	var applied []*generate.Result
	for _, pu := range prepared {
		if pu != nil {
			applied = append(applied, pu.gen)
		}
	}
	b.Message = fmt.Sprintf("Updated %d/%d entries successfully", b.Succeeded, total) + generate.BatchUpdateParts(applied)
	return b, nil
}

// atIndex adds the atomic batch's position to an access error.
func atIndex(err error, i int) error {
	var ee *cerrors.Error
	if !errors.As(err, &ee) {
		return err
	}
	if errors.Is(ee.Kind, cerrors.ErrNotAuthorized) && strings.HasPrefix(ee.Msg, "Only") {
		return &cerrors.Error{Kind: ee.Kind, Msg: fmt.Sprintf("%s (index %d)", ee.Msg, i)}
	}
	if errors.Is(ee.Kind, cerrors.ErrNotFound) || errors.Is(ee.Kind, cerrors.ErrNotAuthorized) {
		return &cerrors.Error{Kind: ee.Kind, Msg: fmt.Sprintf("%s at index %d", ee.Msg, i)}
	}
	return err
}
