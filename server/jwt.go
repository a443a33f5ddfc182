package server

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
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/contextd/contextd"
)

// JWTConfig configures the jwt provider (MCP_AUTH_JWT_*, MCP_AUTH_*_CLAIM).
type JWTConfig struct {
	// PublicKey is a PEM public key, or the shared secret for HS*.
	PublicKey string
	// JWKSURI is a JWKS endpoint; exactly one of PublicKey and JWKSURI.
	JWKSURI string
	// Issuer and Audience, when set, must match iss and aud.
	Issuer, Audience string
	// Algorithm pins the signing algorithm (default RS256).
	Algorithm string
	// GroupsClaim and RolesClaim name the claims (defaults groups, roles);
	// dotted paths reach nested claims, keys with "://" are verbatim.
	GroupsClaim, RolesClaim string
	// HTTPClient fetches the JWKS (nil: a client with a 10 s timeout).
	HTTPClient *http.Client
	// JWKSRefreshInterval bounds how often an unknown kid may trigger a
	// refetch (default 10 s) and JWKSMaxAge how long keys are trusted
	// before the next fetch (default 1 h).
	JWKSRefreshInterval, JWKSMaxAge time.Duration
}

var jwtAlgorithms = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512",
	"ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA"}

type jwtVerifier struct {
	cfg    JWTConfig
	parser *jwt.Parser
	key    any   // the static key, when PublicKey is set
	jwks   *jwks // the key set, when JWKSURI is set
}

func newJWTVerifier(cfg JWTConfig) (*jwtVerifier, error) {
	if cfg.Algorithm == "" {
		cfg.Algorithm = "RS256"
	}
	if !contains(jwtAlgorithms, cfg.Algorithm) {
		return nil, &ConfigError{Var: "MCP_AUTH_JWT_ALGORITHM", Value: cfg.Algorithm, Reason: "must be one of " + strings.Join(jwtAlgorithms, ", ")}
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.RolesClaim == "" {
		cfg.RolesClaim = "roles"
	}
	v := &jwtVerifier{cfg: cfg}
	switch {
	case cfg.PublicKey != "" && cfg.JWKSURI != "":
		return nil, &ConfigError{Var: "MCP_AUTH_JWT_JWKS_URI", Value: cfg.JWKSURI, Reason: "set either MCP_AUTH_JWT_PUBLIC_KEY or MCP_AUTH_JWT_JWKS_URI, not both"}
	case cfg.PublicKey == "" && cfg.JWKSURI == "":
		return nil, &ConfigError{Var: "MCP_AUTH_JWT_PUBLIC_KEY", Reason: "MCP_AUTH_PROVIDER=jwt needs MCP_AUTH_JWT_PUBLIC_KEY or MCP_AUTH_JWT_JWKS_URI"}
	case cfg.PublicKey != "":
		key, err := parseStaticKey(cfg.Algorithm, cfg.PublicKey)
		if err != nil {
			return nil, &ConfigError{Var: "MCP_AUTH_JWT_PUBLIC_KEY", Value: "(redacted)", Reason: err.Error()}
		}
		v.key = key
	case strings.HasPrefix(cfg.Algorithm, "HS"):
		return nil, &ConfigError{Var: "MCP_AUTH_JWT_JWKS_URI", Value: cfg.JWKSURI, Reason: cfg.Algorithm + " needs the shared secret in MCP_AUTH_JWT_PUBLIC_KEY; a JWKS serves public keys only"}
	default:
		u, err := url.Parse(cfg.JWKSURI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, &ConfigError{Var: "MCP_AUTH_JWT_JWKS_URI", Value: cfg.JWKSURI, Reason: "must be an http or https URL"}
		}
		v.jwks = newJWKS(cfg)
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{cfg.Algorithm}),
		jwt.WithExpirationRequired(),
		jwt.WithJSONNumber(),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

// parseStaticKey reads the verification key of alg from a PEM block (or
// the raw secret of HS*), refusing a key of the wrong kind at startup.
func parseStaticKey(alg, text string) (any, error) {
	pem := []byte(strings.ReplaceAll(text, `\n`, "\n")) // one-line env values
	switch alg[:2] {
	case "HS":
		return []byte(text), nil
	case "RS", "PS":
		k, err := jwt.ParseRSAPublicKeyFromPEM(pem)
		if err != nil {
			return nil, fmt.Errorf("not an RSA public key in PEM form for %s: %v", alg, err)
		}
		return k, nil
	case "ES":
		k, err := jwt.ParseECPublicKeyFromPEM(pem)
		if err != nil {
			return nil, fmt.Errorf("not an EC public key in PEM form for %s: %v", alg, err)
		}
		return k, nil
	}
	k, err := jwt.ParseEdPublicKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("not an Ed25519 public key in PEM form for EdDSA: %v", err)
	}
	return k, nil
}

func (v *jwtVerifier) keyFunc(ctx context.Context) jwt.Keyfunc {
	return func(tok *jwt.Token) (any, error) {
		if v.key != nil {
			return v.key, nil
		}
		kid, _ := tok.Header["kid"].(string)
		return v.jwks.key(ctx, kid)
	}
}

func (v *jwtVerifier) authenticate(ctx context.Context, token string) (contextd.Principal, error) {
	if token == "" {
		return contextd.Principal{}, errUnauthenticated
	}
	claims := jwt.MapClaims{}
	if _, err := v.parser.ParseWithClaims(token, claims, v.keyFunc(ctx)); err != nil {
		return contextd.Principal{}, err
	}
	p := contextd.Principal{ID: claimString(claims, "sub")}
	if p.ID == "" { // fall back to the token's client id
		p.ID = claimString(claims, "client_id")
		if p.ID == "" {
			p.ID = claimString(claims, "azp")
		}
	}
	if p.ID == "" {
		return contextd.Principal{}, errors.New("token has no sub")
	}
	p.Groups = claimList(claims, v.cfg.GroupsClaim)
	p.Roles = claimList(claims, v.cfg.RolesClaim)
	return p, nil
}

func claimString(c jwt.MapClaims, key string) string {
	s, _ := c[key].(string)
	return s
}

// lookupClaim finds a claim: a key present verbatim wins; a key
// holding "://" is only ever verbatim; otherwise a dotted path descends
// into nested objects.
func lookupClaim(c map[string]any, key string) (any, bool) {
	if v, ok := c[key]; ok {
		return v, true
	}
	if strings.Contains(key, "://") || !strings.Contains(key, ".") {
		return nil, false
	}
	var cur any = c
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// claimList coerces a groups or roles claim: a non-empty string is one
// item; a list keeps its non-empty strings and integers (as text) and skips
// the rest; anything else, or an absent claim, is none. An absent groups
// claim with an Entra overage marker stays none: we fail closed rather
// than fetch the groups from elsewhere.
func claimList(c jwt.MapClaims, key string) []string {
	v, ok := lookupClaim(c, key)
	if !ok {
		return nil
	}
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}
		}
	case []any:
		var out []string
		for _, it := range x {
			switch y := it.(type) {
			case string:
				if y != "" {
					out = append(out, y)
				}
			case json.Number:
				if n, err := strconv.ParseInt(string(y), 10, 64); err == nil {
					out = append(out, strconv.FormatInt(n, 10))
				}
			}
		}
		return out
	}
	return nil
}

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
		x, err := b64int(k.X)
		if err != nil {
			return nil, err
		}
		y, err := b64int(k.Y)
		if err != nil {
			return nil, err
		}
		return &ecdsa.PublicKey{Curve: curve, X: x, Y: y}, nil
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
