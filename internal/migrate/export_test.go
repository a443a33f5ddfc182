package migrate

// OptionsAfterBatch returns Options of batch entries per transaction that
// call fn with the chunks done after each committed batch: the tests stop
// a migration between two batches with it.
func OptionsAfterBatch(batch int, fn func(done int)) Options {
	return Options{Batch: batch, afterBatch: fn}
}
