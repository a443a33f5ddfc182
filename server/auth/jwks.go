package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"
)

// jwks is a cached JSON Web Key Set. Keys are fetched on first use,
// trusted for JWKSMaxAge, and refetched early when a token names an
// unknown kid (key rotation), at most once per JWKSRefreshInterval so that
// tokens with made-up kids cannot hammer the endpoint.
type jwks struct {
	cfg    JWTConfig
	client *http.Client

	mu      sync.Mutex
	keys    map[string]crypto.PublicKey
	fetched time.Time
}

func newJWKS(cfg JWTConfig) *jwks {
	if cfg.JWKSRefreshInterval <= 0 {
		cfg.JWKSRefreshInterval = 10 * time.Second
	}
	if cfg.JWKSMaxAge <= 0 {
		cfg.JWKSMaxAge = time.Hour
	}
	c := cfg.HTTPClient
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Second}
	}
	return &jwks{cfg: cfg, client: c}
}

func (j *jwks) key(ctx context.Context, kid string) (any, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	stale := j.keys == nil || time.Since(j.fetched) > j.cfg.JWKSMaxAge
	if _, known := j.find(kid); !known && time.Since(j.fetched) > j.cfg.JWKSRefreshInterval {
		stale = true
	}
	if stale {
		if err := j.fetch(ctx); err != nil && j.keys == nil {
			return nil, err
		}
	}
	k, ok := j.find(kid)
	if !ok {
		return nil, fmt.Errorf("no JWKS key for kid %q", kid)
	}
	return k, nil
}

// find returns the key of kid; a token without kid matches a set of one.
func (j *jwks) find(kid string) (crypto.PublicKey, bool) {
	if kid == "" && len(j.keys) == 1 {
		for _, k := range j.keys {
			return k, true
		}
	}
	k, ok := j.keys[kid]
	return k, ok
}

func (j *jwks) fetch(ctx context.Context) error {
	j.fetched = time.Now() // also on failure: the interval bounds retries
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.cfg.JWKSURI, nil)
	if err != nil {
		return fmt.Errorf("jwks: %w", err)
	}
	resp, err := j.client.Do(req)
	if err != nil {
		return fmt.Errorf("jwks: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("jwks: %s answered %s", j.cfg.JWKSURI, resp.Status)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return fmt.Errorf("jwks: decode: %w", err)
	}
	keys := map[string]crypto.PublicKey{}
	for _, k := range set.Keys {
		if pk, err := k.publicKey(); err == nil {
			keys[k.Kid] = pk
		}
	}
	j.keys = keys
	return nil
}

// jwk is one JSON Web Key (RFC 7517/7518/8037) of the kinds JWT uses.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(b), nil
}

func (k jwk) publicKey() (crypto.PublicKey, error) {
	switch k.Kty {
	case "RSA":
		n, err := b64int(k.N)
		if err != nil {
			return nil, err
		}
		e, err := b64int(k.E)
		if err != nil || !e.IsInt64() {
			return nil, errors.New("bad exponent")
		}
		return &rsa.PublicKey{N: n, E: int(e.Int64())}, nil
	case "EC":
		var curve elliptic.Curve
		switch k.Crv {
		case "P-256":
			curve = elliptic.P256()
		case "P-384":
			curve = elliptic.P384()
		case "P-521":
			curve = elliptic.P521()
		default:
			return nil, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		// The uncompressed point 0x04 || X || Y, each coordinate its
		// curve's size (left-padded: some issuers drop leading zeros);
		// the parser also checks the point is on the curve.
		size := (curve.Params().BitSize + 7) / 8
		point := []byte{4}
		for _, c := range []string{k.X, k.Y} {
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(c, "="))
			if err != nil {
				return nil, err
			}
			if len(b) > size {
				return nil, errors.New("bad EC key: coordinate too long")
			}
			point = append(point, make([]byte, size-len(b))...)
			point = append(point, b...)
		}
		return ecdsa.ParseUncompressedPublicKey(curve, point)
	case "OKP":
		if k.Crv != "Ed25519" {
			return nil, fmt.Errorf("unsupported curve %q", k.Crv)
		}
		x, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(k.X, "="))
		if err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("bad Ed25519 key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("unsupported key type %q", k.Kty)
}
