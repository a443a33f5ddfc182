// Package quant owns the compression of embedding vectors (requirements
// C.14, TurboQuant): a seeded orthogonal rotation (a randomized Hadamard
// transform in O(d log d), any dimension), Lloyd-Max scalar codebooks for
// 1-4 bits, the `mse` and `ip` variants (ip: MSE at b−1 bits plus the
// 1-bit QJL sketch of the residual with its unbiased inner-product
// estimator), LSB-first bit packing, the versioned TQP1 payload, scoring
// of codes against a float32 query through per-query lookup tables
// (asymmetric distance, nothing decoded), and the fingerprint of the
// realised rotation that the store records as provenance.
//
// It is Go with one AVX2 kernel (4-bit mse scoring, score_amd64.s, used
// when the CPU has AVX2 and FMA; a scalar loop otherwise), allocation-free
// on the scoring path, and depends only on the errors package and
// golang.org/x/sys/cpu: vector and the storage layers build on it.
//
//	q, _ := quant.New(quant.Config{Dim: 384, Bits: 4}) // mse, seed 0
//	code, _ := q.Encode(nil, vec)                      // 196 bytes, not 1536
//	qq, _ := q.NewQuery(query)
//	d2 := qq.L2(code)                                  // ≈ ‖vec − query‖²
//	payload, _ := q.MarshalPayload(code)               // "TQP1..." for SQL
//
// Measured on 384-d unit vectors (TestMSEDistortion): ‖x − x̃‖² averages
// 0.36, 0.117, 0.035 and 0.0095 at 1-4 bits, the Lloyd-Max figures for the
// Gaussian the paper rounds to 0.36, 0.117, 0.03 and 0.009.
package quant
