package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestClaimLookup(t *testing.T) {
	claims := jwt.MapClaims{}
	raw := `{"groups":["a","",7,1.5,true,{"x":1},"b"],"realm_access":{"roles":["admin"]},"realm_access.roles":"verbatim",
		"https://example.com/roles":["r1"],"scalar":"only","empty":"","num":5,
		"nested":{"deep":{"list":["x"]}},"_claim_names":{"groups":"src1"}}`
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&claims); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want string
	}{
		{"groups", "a,7,b"},
		{"realm_access.roles", "verbatim"}, // the verbatim key wins
		{"nested.deep.list", "x"},
		{"https://example.com/roles", "r1"},
		{"https://example.com/roles.x", ""}, // URL keys are never paths
		{"scalar", "only"},
		{"empty", ""},
		{"num", ""},
		{"missing", ""},
		{"nested.missing.list", ""},
		{"scalar.x", ""},
	}
	for _, tc := range tests {
		if got := strings.Join(claimList(claims, tc.key), ","); got != tc.want {
			t.Fatalf("claimList(%q): got %q, want %q", tc.key, got, tc.want)
		}
	}
	delete(claims, "realm_access.roles")
	if got := strings.Join(claimList(claims, "realm_access.roles"), ","); got != "admin" {
		t.Fatalf("dotted path: got %q, want admin", got)
	}
}

func TestBearer(t *testing.T) {
	tests := []struct {
		header, token string
		ok            bool
	}{
		{"", "", true},
		{"Bearer abc", "abc", true},
		{"bearer  abc ", "abc", true},
		{"Basic abc", "", false},
		{"Bearer", "", false},
		{"Bearer   ", "", false},
		{"abc", "", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest("POST", "/mcp", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		tok, ok := bearer(r)
		if tok != tc.token || ok != tc.ok {
			t.Fatalf("bearer(%q): got %q %v, want %q %v", tc.header, tok, ok, tc.token, tc.ok)
		}
	}
}

func FuzzBearer(f *testing.F) {
	for _, s := range []string{"", "Bearer x", "bearer", "Basic Zm9v", "Bearer \x00", "Bearer a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header["Authorization"] = []string{h}
		tok, ok := bearer(r)
		if ok && tok != "" && !strings.Contains(h, tok) {
			t.Fatalf("token %q is not part of the header %q", tok, h)
		}
	})
}

// FuzzJWK feeds arbitrary key-set documents to the JWK decoder: it may
// refuse them but must never panic.
func FuzzJWK(f *testing.F) {
	for _, s := range []string{
		`{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB"}`,
		`{"kty":"EC","crv":"P-256","x":"AA","y":"AA"}`,
		`{"kty":"OKP","crv":"Ed25519","x":"` + strings.Repeat("A", 43) + `"}`,
		`{"kty":"RSA","e":"` + strings.Repeat("A", 20) + `"}`,
		`{"kty":"oct","k":"c2VjcmV0"}`, `{}`, `[]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var k jwk
		if json.Unmarshal([]byte(doc), &k) != nil {
			return
		}
		_, _ = k.publicKey()
	})
}

func TestJWTStaticKeys(t *testing.T) {
	ctx := context.Background()
	edPub, edPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(edPub)
	edPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	claims := jwt.MapClaims{"sub": "svc", "exp": time.Now().Add(time.Minute).Unix(),
		"realm_access": map[string]any{"roles": []any{"publisher", 3}}}
	hsTok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("shared-secret"))
	edTok, _ := jwt.NewWithClaims(jwt.SigningMethodEdDSA, claims).SignedString(edPriv)
	tests := []struct {
		alg, key, token string
		ok              bool
	}{
		{"HS256", "shared-secret", hsTok, true},
		{"HS256", "other-secret", hsTok, false},
		{"HS384", "shared-secret", hsTok, false}, // pinned algorithm
		{"EdDSA", edPEM, edTok, true},
		{"EdDSA", edPEM, hsTok, false},
		{"HS256", "shared-secret", edTok, false},
	}
	for _, tc := range tests {
		auth, err := New(Config{Provider: "jwt", JWT: JWTConfig{PublicKey: tc.key, Algorithm: tc.alg, RolesClaim: "realm_access.roles"}}, "local")
		if err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		p, err := auth(ctx, tc.token)
		if (err == nil) != tc.ok {
			t.Fatalf("%s with key %.10q: err %v, want ok=%v", tc.alg, tc.key, err, tc.ok)
		}
		if tc.ok && (p.ID != "svc" || strings.Join(p.Roles, ",") != "publisher,3" || p.Groups != nil) {
			t.Fatalf("%s: principal %+v", tc.alg, p)
		}
	}
}

// TestJWTCritRefused: RFC 7515 4.1.11, a token whose header lists critical
// extensions the server does not understand (it understands none) gets a
// 401 naming why, whether crit is well formed or not, and the request
// never reaches the handler.
func TestJWTCritRefused(t *testing.T) {
	auth, err := New(Config{Provider: "jwt", JWT: JWTConfig{PublicKey: "k", Algorithm: "HS256"}}, "local")
	if err != nil {
		t.Fatal(err)
	}
	reached := false
	h := Require(auth, nil, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	claims := jwt.MapClaims{"sub": "bob", "exp": time.Now().Add(time.Minute).Unix()}
	plain, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("k"))
	for _, crit := range []any{[]string{"b64"}, []string{"x-unknown", "exp"}, "b64", []string{}, 7} {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims)
		tok.Header["crit"] = crit
		tok.Header["b64"] = false
		signed, _ := tok.SignedString([]byte("k"))
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+signed)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		want := `{"error":"invalid_token","error_description":"token header 'crit' names parameters this server does not understand (RFC 7515 section 4.1.11)"}`
		if w.Code != 401 || w.Body.String() != want || reached {
			t.Fatalf("crit %v: %d %s (reached %v), want 401 %s", crit, w.Code, w.Body, reached, want)
		}
	}
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+plain)
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !reached {
		t.Fatal("the same token without crit was refused")
	}
}

// TestJWTClientIDFallback: a token without sub names its client
// only when ClientIDFallback is on (client_id, then azp); by default it is
// refused, since a client id shares one namespace with user ids.
func TestJWTClientIDFallback(t *testing.T) {
	exp := time.Now().Add(time.Minute).Unix()
	sign := func(c jwt.MapClaims) string {
		c["exp"] = exp
		s, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte("k"))
		return s
	}
	tests := []struct {
		claims   jwt.MapClaims
		fallback bool
		want     string // the principal, or the error
	}{
		{jwt.MapClaims{"sub": "alice", "client_id": "c1"}, false, "alice"},
		{jwt.MapClaims{"client_id": "alice"}, false, "error: token has no sub claim"},
		{jwt.MapClaims{"sub": "", "azp": "alice"}, false, "error: token has no sub claim"},
		{jwt.MapClaims{"client_id": "c1", "azp": "a1"}, true, "c1"},
		{jwt.MapClaims{"azp": "a1"}, true, "a1"},
		{jwt.MapClaims{"scope": "x"}, true, "error: token has no sub claim"},
	}
	for _, tc := range tests {
		auth, err := New(Config{Provider: "jwt", JWT: JWTConfig{PublicKey: "k", Algorithm: "HS256", ClientIDFallback: tc.fallback}}, "local")
		if err != nil {
			t.Fatal(err)
		}
		p, err := auth(context.Background(), sign(tc.claims))
		got := p.ID
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Fatalf("%v fallback=%v: got %q, want %q", tc.claims, tc.fallback, got, tc.want)
		}
	}
	// The 401 body names the reason.
	auth, _ := New(Config{Provider: "jwt", JWT: JWTConfig{PublicKey: "k", Algorithm: "HS256"}}, "local")
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+sign(jwt.MapClaims{"client_id": "alice"}))
	w := httptest.NewRecorder()
	Require(auth, nil, http.NotFoundHandler()).ServeHTTP(w, r)
	if want := `{"error":"invalid_token","error_description":"token has no sub claim"}`; w.Code != 401 || w.Body.String() != want {
		t.Fatalf("got %d %s, want 401 %s", w.Code, w.Body, want)
	}
}
