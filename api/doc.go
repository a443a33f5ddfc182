// Package api holds the public request, response and value types of
// contextd: the inputs and results of the MCP tools as the engine (package
// contextd, which re-exports every one of them under the same name) takes
// and returns them. It imports nothing of the module, so the engine's
// internal packages build these values directly and the facade hands them
// on without converting.
//
// A response marshals to exactly the JSON its tool returns, so a transport
// adds nothing but framing. In requests, a nil slice or map means "absent"
// and a non-nil empty one means "empty" (tags: [] clears a tag list).
package api
