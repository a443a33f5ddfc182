package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
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
