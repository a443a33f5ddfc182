package postgres

// notifyChannel is the LISTEN/NOTIFY channel of a schema's change log:
// every committed write sends its last seq on it, so replicas sharing the
// database wake up without polling (they still catch up by seq).
func notifyChannel(schema string) string { return "contextd_changes_" + schema }
