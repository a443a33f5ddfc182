package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
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
	// ClientIDFallback names a token without sub by its client_id (then
	// azp), as upstream does (MCP_AUTH_JWT_CLIENT_ID_FALLBACK). Off by
	// default: a client id shares one namespace with user ids, so an IdP
	// that lets a client be registered as "alice" would hand it alice's
	// entries. Turn it on only where the IdP keeps the two apart.
	ClientIDFallback bool
	// JWKSRefreshInterval bounds how often an unknown kid may trigger a
	// refetch (default 10 s) and JWKSMaxAge how long keys are trusted
	// before the next fetch (default 1 h).
	JWKSRefreshInterval, JWKSMaxAge time.Duration
}

// jwtAlgorithms are the signing algorithms the jwt provider accepts.
func jwtAlgorithms() []string {
	return []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512",
		"ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA"}
}

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
	if algs := jwtAlgorithms(); !slices.Contains(algs, cfg.Algorithm) {
		return nil, &ConfigError{Field: "JWT.Algorithm", Value: cfg.Algorithm, Reason: "must be one of " + strings.Join(algs, ", ")}
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
		return nil, &ConfigError{Field: "JWT.JWKSURI", Value: cfg.JWKSURI, Reason: "set either JWT.PublicKey or JWT.JWKSURI, not both"}
	case cfg.PublicKey == "" && cfg.JWKSURI == "":
		return nil, &ConfigError{Field: "JWT.PublicKey", Reason: "Provider=jwt needs JWT.PublicKey or JWT.JWKSURI"}
	case cfg.PublicKey != "":
		key, err := parseStaticKey(cfg.Algorithm, cfg.PublicKey)
		if err != nil {
			return nil, &ConfigError{Field: "JWT.PublicKey", Value: "(redacted)", Reason: err.Error()}
		}
		v.key = key
	case strings.HasPrefix(cfg.Algorithm, "HS"):
		return nil, &ConfigError{Field: "JWT.JWKSURI", Value: cfg.JWKSURI, Reason: cfg.Algorithm + " needs the shared secret in JWT.PublicKey; a JWKS serves public keys only"}
	default:
		u, err := url.Parse(cfg.JWKSURI)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, &ConfigError{Field: "JWT.JWKSURI", Value: cfg.JWKSURI, Reason: "must be an http or https URL"}
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
			return nil, fmt.Errorf("not an RSA public key in PEM form for %s: %w", alg, err)
		}
		return k, nil
	case "ES":
		k, err := jwt.ParseECPublicKeyFromPEM(pem)
		if err != nil {
			return nil, fmt.Errorf("not an EC public key in PEM form for %s: %w", alg, err)
		}
		return k, nil
	}
	k, err := jwt.ParseEdPublicKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("not an Ed25519 public key in PEM form for EdDSA: %w", err)
	}
	return k, nil
}

// errCrit is the refusal of a token whose header lists critical
// extensions: RFC 7515 4.1.11 requires refusing a token naming one the
// recipient does not understand, and this server understands none. The
// names are not echoed: they are the caller's text.
var errCrit = &Rejection{Reason: "token header 'crit' names parameters this server does not understand (RFC 7515 section 4.1.11)"}

// errNoSub refuses a token without a subject (when the client id fallback
// is off, or the token carries no client id either).
var errNoSub = &Rejection{Reason: "token has no sub claim"}

func (v *jwtVerifier) keyFunc(ctx context.Context) jwt.Keyfunc {
	return func(tok *jwt.Token) (any, error) {
		// Checked before any key is looked up, so a crit token never
		// triggers a JWKS fetch. Any crit at all is refused, including a
		// malformed one (not a list of names, or empty: RFC 7515 forbids
		// both).
		if _, ok := tok.Header["crit"]; ok {
			return nil, errCrit
		}
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
	if p.ID == "" && v.cfg.ClientIDFallback { // R-300 [U+], opt-in
		p.ID = claimString(claims, "client_id")
		if p.ID == "" {
			p.ID = claimString(claims, "azp")
		}
	}
	if p.ID == "" {
		return contextd.Principal{}, errNoSub
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
