package contextd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/contextd/contextd/internal/generate"
	"github.com/contextd/contextd/persist"
)

func strPtr(s string) *string { return &s }

func errText(err error) *string { return strPtr(err.Error()) }

// StoreBatch stores up to 100 entries in order (store_context_batch).
func (e *Engine) StoreBatch(ctx context.Context, req StoreBatchRequest) (*BatchResponse, error) {
	if err := e.CheckWritable(ctx, "store_context_batch"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	total := len(req.Entries)
	if total == 0 || total > maxBatch {
		return nil, invalidf("entries must hold 1 to %d entries, got %d", maxBatch, total)
	}
	atomic := req.Atomic == nil || *req.Atomic
	prepared := make([]*preparedStore, total)
	errs := make([]error, total)
	invalid, first := 0, -1
	for i, item := range req.Entries {
		if item.DecodeErr != nil {
			errs[i] = item.DecodeErr
		} else {
			prepared[i], errs[i] = e.prepareStore(p, item.StoreRequest, true)
		}
		if errs[i] != nil {
			invalid++
			if first < 0 {
				first = i
			}
		}
	}
	if atomic && invalid > 0 {
		return nil, invalidf("Validation failed for %d entries. First error at index %d: %s", invalid, first, errs[first])
	}
	resp := &BatchResponse{Total: total, Results: make([]BatchItemResult, total)}
	for i := range resp.Results {
		resp.Results[i] = BatchItemResult{Index: i}
		if errs[i] != nil {
			resp.Results[i].Error = errText(errs[i])
		}
	}
	if invalid == total {
		resp.Failed = total
		resp.Message = "All entries failed validation"
		return resp, nil
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
			genErrs[i] = e.generateStore(ctx, p, acc, ps, false)
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
		resp.Results[i].Error, prepared[i] = errText(err), nil
	}
	outs := make([]storeOutcome, total)
	record := func(i int, out storeOutcome) {
		resp.Results[i].Success = true
		resp.Results[i].ContextID = strPtr(out.id)
		resp.Succeeded++
		outs[i] = out
	}
	if atomic {
		txOuts := make([]storeOutcome, total)
		err := e.st.Write(ctx, func(tx persist.Tx) error {
			for i, ps := range prepared {
				out, err := e.storeTx(ctx, tx, p, acc, ps)
				if err != nil {
					return fmt.Errorf("entry %d: %w", i, err)
				}
				txOuts[i] = out
			}
			return nil
		})
		if err != nil {
			return nil, passEngineErr("store batch", err)
		}
		for i := range txOuts {
			record(i, txOuts[i])
		}
	} else {
		for i, ps := range prepared {
			if ps == nil {
				continue
			}
			var out storeOutcome
			err := e.st.Write(ctx, func(tx persist.Tx) error {
				var err error
				out, err = e.storeTx(ctx, tx, p, acc, ps)
				return err
			})
			if err != nil {
				resp.Results[i].Error = errText(err)
				continue
			}
			record(i, out)
		}
	}
	resp.Failed = total - resp.Succeeded
	resp.Success = resp.Failed == 0
	resp.Message = fmt.Sprintf("Stored %d/%d entries successfully", resp.Succeeded, total) + batchStoreParts(prepared, outs, resp.Results)
	return resp, nil
}

// batchStoreParts is the parenthesized part of a batch store message
// over the entries that were stored.
func batchStoreParts(prepared []*preparedStore, outs []storeOutcome, results []BatchItemResult) string {
	var stored []generate.Stored
	for i, ps := range prepared {
		if ps != nil && results[i].Success {
			stored = append(stored, generate.Stored{Result: ps.gen, Merged: outs[i].merged, EmbStored: outs[i].embStored})
		}
	}
	return generate.BatchStoreParts(stored)
}

// prepareBatchUpdate decodes, resolves and validates one batch item.
func (e *Engine) prepareBatchUpdate(ctx context.Context, acc persist.Access, item UpdateBatchItem) (*preparedUpdate, error) {
	if item.DecodeErr != nil {
		return nil, item.DecodeErr
	}
	if pyStrip(item.ContextID) == "" {
		return nil, invalidf("context_id must be a non-empty string")
	}
	id, err := resolveID(ctx, e.st, acc, item.ContextID)
	if err != nil {
		return nil, wrapIDErr("Invalid context_id: ", err)
	}
	pu, err := e.validateUpdate(item.UpdateRequest, updateWording{batch: true})
	if err != nil {
		return nil, err
	}
	pu.id = id
	return pu, nil
}

// UpdateBatch applies up to 100 updates in order (update_context_batch).
func (e *Engine) UpdateBatch(ctx context.Context, req UpdateBatchRequest) (*BatchResponse, error) {
	if err := e.CheckWritable(ctx, "update_context_batch"); err != nil {
		return nil, err
	}
	p, acc, err := e.caller(ctx)
	if err != nil {
		return nil, err
	}
	total := len(req.Updates)
	if total == 0 || total > maxBatch {
		return nil, invalidf("updates must hold 1 to %d updates, got %d", maxBatch, total)
	}
	atomic := req.Atomic == nil || *req.Atomic
	prepared := make([]*preparedUpdate, total)
	errs := make([]error, total)
	invalid, first := 0, -1
	for i, item := range req.Updates {
		prepared[i], errs[i] = e.prepareBatchUpdate(ctx, acc, item)
		if errs[i] != nil {
			invalid++
			if first < 0 {
				first = i
			}
		}
	}
	if atomic && invalid > 0 {
		return nil, invalidf("Validation failed for %d entries. First error at context_id %s: %s", invalid, req.Updates[first].ContextID, errs[first])
	}
	resp := &BatchResponse{Total: total, Results: make([]BatchItemResult, total)}
	for i, item := range req.Updates {
		r := BatchItemResult{Index: i, update: true}
		if prepared[i] != nil {
			r.ContextID = strPtr(prepared[i].id)
		} else {
			r.ContextID = strPtr(item.ContextID)
		}
		if errs[i] != nil {
			r.Error = errText(errs[i])
		}
		resp.Results[i] = r
	}
	if invalid == total {
		resp.Failed = total
		resp.Message = "All updates failed validation"
		return resp, nil
	}
	for i, pu := range prepared {
		if pu == nil || pu.text == nil {
			continue
		}
		if _, err := e.checkUpdateAccess(ctx, e.st, p, acc, pu, batchAccess); err != nil {
			continue // reported by the transaction in order
		}
		if err := e.generateUpdate(ctx, acc, pu); err != nil {
			if atomic {
				return nil, err
			}
			resp.Results[i].Error, prepared[i] = errText(err), nil
		}
	}
	if atomic {
		fields := make([][]string, total)
		err := e.st.Write(ctx, func(tx persist.Tx) error {
			for i, pu := range prepared {
				st, err := e.checkUpdateAccess(ctx, tx, p, acc, pu, batchAccess)
				if err != nil {
					return atIndex(err, i)
				}
				f, ok, err := e.applyUpdate(ctx, tx, pu, st)
				if err != nil {
					return err
				}
				if !ok {
					return newErr(ErrConflict, "Concurrent modification during atomic batch update: context %s changed at index %d. Retry the request.", pu.id, i)
				}
				fields[i] = f
			}
			return nil
		})
		if err != nil {
			return nil, passEngineErr("update batch", err)
		}
		for i := range fields {
			resp.Results[i].Success, resp.Results[i].UpdatedFields = true, fields[i]
		}
		resp.Succeeded = total
	} else {
		for i, pu := range prepared {
			if pu == nil {
				continue
			}
			f, err := e.updateOne(ctx, p, acc, pu, batchAccess)
			if err != nil {
				resp.Results[i].Error = errText(err)
				continue
			}
			resp.Results[i].Success, resp.Results[i].UpdatedFields = true, f
			resp.Succeeded++
		}
	}
	resp.Failed = total - resp.Succeeded
	resp.Success = resp.Failed == 0
	switch {
	case resp.Succeeded == 0:
		resp.Message = "All updates failed validation or entry not found"
	default:
		resp.Message = fmt.Sprintf("Updated %d/%d entries successfully", resp.Succeeded, total) + batchUpdateParts(prepared, resp.Results)
	}
	return resp, nil
}

// batchUpdateParts is the parenthesized part of a batch update message
// over the updates that were applied.
func batchUpdateParts(prepared []*preparedUpdate, results []BatchItemResult) string {
	var applied []*generate.Result
	for i, pu := range prepared {
		if pu != nil && results[i].Success {
			applied = append(applied, pu.gen)
		}
	}
	return generate.BatchUpdateParts(applied)
}

// atIndex adds the atomic batch's position to an access error.
func atIndex(err error, i int) error {
	var ee *Error
	if !errors.As(err, &ee) {
		return err
	}
	if errors.Is(ee.Kind, ErrNotAuthorized) && len(ee.Msg) > 0 && ee.Msg[:4] == "Only" {
		return &Error{Kind: ee.Kind, Msg: fmt.Sprintf("%s (index %d)", ee.Msg, i)}
	}
	if errors.Is(ee.Kind, ErrNotFound) || errors.Is(ee.Kind, ErrNotAuthorized) {
		return &Error{Kind: ee.Kind, Msg: fmt.Sprintf("%s at index %d", ee.Msg, i)}
	}
	return err
}
