package persist

import "time"

// Types shared by embedding storage (VectorStore, VectorWriter), the
// in-process vector index and the database's own vector search
// (NativeVectors); the interfaces are in contract.go.

// ChunkVector is one embedded chunk of an entry's text. Start and End are
// code-point offsets (End exclusive) into the entry's text.
//
// A chunk is stored in one or both of two forms, exactly as given: Vector,
// the float32 vector, and Code, its compressed form (a one-row TQP1
// payload of package quant, opaque to the store). At least one is set;
// a nil Vector on read means the store holds only the code.
type ChunkVector struct {
	Index  int
	Start  int
	End    int
	Vector []float32
	Code   []byte
}

// Compression is the provenance of the stored codes (C.14's
// compression_metadata singleton): the quantizer that wrote every Code.
type Compression struct {
	Provider    string // "turboquant"
	Bits        int    // 2-4
	Variant     string // "mse" | "ip"
	Seed        uint32
	Dim         int
	Fingerprint string // hex SHA-256 of the realised rotation
	CreatedAt   time.Time
}

// VectorForms counts the stored chunks by form, deployment wide: what the
// start-up provenance check and the migrations need to know.
type VectorForms struct {
	Chunks    int   // chunk rows
	Float     int   // chunks holding a float32 vector
	Code      int   // chunks holding a code
	CodeBytes int64 // total bytes of the codes
}

// ChunkForm is the new content of one stored chunk for Tx.RewriteChunks:
// its key and the forms it keeps (at least one).
type ChunkForm struct {
	Key    uint64
	Vector []float32
	Code   []byte
}

// Embeddings are the vectors of one entry, all from one model.
type Embeddings struct {
	Model  string
	Dim    int
	Chunks []ChunkVector
}

// VectorDoc is an entry as the vector index sees it: its chunk vectors,
// keyed by their database row ids (stable for the chunk's lifetime), read
// without any access restriction.
type VectorDoc struct {
	ID     string
	Chunks []KeyedChunk
}

// KeyedChunk is a chunk vector with its database row id.
type KeyedChunk struct {
	Key uint64
	ChunkVector
}

// EmbeddingModel is the model the stored vectors came from, as recorded in
// the database when the first vector was written.
type EmbeddingModel struct {
	Model string
	Dim   int
}

// VectorQuery asks the database's own vector search for the Limit readable
// entries nearest to Vector (best chunk per entry) that match Filter.
type VectorQuery struct {
	Filter
	Vector  []float32
	Limit   int
	Explain bool
}

// VectorHit is one entry of a VectorQuery answer: the Euclidean distance
// of its best chunk (ties to the smaller Start) and that chunk's span.
type VectorHit struct {
	ID       string
	Distance float64
	Chunk    int
	Start    int
	End      int
}

// VectorResult is the answer of a VectorQuery, nearest first (distance
// ASC, id ASC).
type VectorResult struct {
	Hits []VectorHit
	Plan string
}
