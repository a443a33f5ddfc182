-- 0004_vector_decode: contextd_f32le(bytea) decodes the stored chunk
-- vectors (little-endian IEEE-754 float32, sqlval.EncodeVector) into
-- real[] inside the database, so that the pgvector table of native vector
-- search (pgvector.go) is kept in step by a trigger: the writes of every
-- replica and RewriteChunks go through the same SQL, whichever process
-- made them. (Filling a new table decodes in Go: 2.8 ms a 384-dimension
-- chunk here is too slow for 100,000 chunks at once.) PostgreSQL has no cast from four bytes to float4, so each
-- element is rebuilt from its sign, exponent and mantissa in float8, where
-- every float32 (subnormals included) is exact; the cast to real is then
-- exact too (TestVectorDecode checks it bit for bit). PostgreSQL gives all
-- bit operators one precedence, hence the parentheses. Inf and NaN never reach the store (sqlval.CheckVector), and
-- the store writes whole float32 values only. NULL (a code-only chunk)
-- gives NULL, no bytes an empty array.
CREATE FUNCTION contextd_f32le(b bytea) RETURNS real[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT coalesce((
        SELECT array_agg(
            (CASE WHEN (x.bits >> 31) = 1 THEN -1::float8 ELSE 1::float8 END) *
            (CASE WHEN (x.bits >> 23) & 255 = 0
                  THEN (x.bits & 8388607)::float8 * power(2::float8, -149)
                  ELSE (1::float8 + (x.bits & 8388607)::float8 / 8388608::float8) * power(2::float8, ((x.bits >> 23) & 255)::float8 - 127)
             END)::real ORDER BY x.i)
        FROM (SELECT i, get_byte(b, 4 * i)::bigint | (get_byte(b, 4 * i + 1)::bigint << 8)
                  | (get_byte(b, 4 * i + 2)::bigint << 16) | (get_byte(b, 4 * i + 3)::bigint << 24) AS bits
              FROM generate_series(0, length(b) / 4 - 1) AS i) AS x), '{}'::real[])
$$;
