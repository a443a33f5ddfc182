package setup_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"github.com/contextd/contextd/config"
	"github.com/contextd/contextd/server/setup"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ecTestKey is a fresh P-256 key and its public key in PEM.
func ecTestKey(t *testing.T) (*ecdsa.PrivateKey, string) {
	t.Helper()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&ecKey.PublicKey)
	return ecKey, string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
}

func TestConfigHTTPAndAuth(t *testing.T) {
	ecKey, ecPEM := ecTestKey(t)
	bad := []struct {
		name    string
		env     map[string]string
		wantVar string
		want    string
	}{
		{"simple_token without token", map[string]string{"MCP_AUTH_PROVIDER": "simple_token"}, "MCP_AUTH_TOKEN",
			"MCP_AUTH_TOKEN is required for SimpleTokenVerifier: set it in the environment of the server"},
		{"simple_token empty", map[string]string{"MCP_AUTH_PROVIDER": "simple_token", "MCP_AUTH_TOKEN": ""}, "MCP_AUTH_TOKEN",
			"MCP_AUTH_TOKEN cannot be empty."},
		{"jwt neither", map[string]string{"MCP_AUTH_PROVIDER": "jwt"}, "MCP_AUTH_JWT_PUBLIC_KEY", "needs MCP_AUTH_JWT_PUBLIC_KEY or MCP_AUTH_JWT_JWKS_URI"},
		{"jwt both", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": ecPEM, "MCP_AUTH_JWT_JWKS_URI": "https://x/jwks"},
			"MCP_AUTH_JWT_JWKS_URI", "not both"},
		{"jwt bad uri", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_JWKS_URI": "file:///etc/keys"}, "MCP_AUTH_JWT_JWKS_URI", "http or https URL"},
		{"jwt algorithm", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": ecPEM, "MCP_AUTH_JWT_ALGORITHM": "none"},
			"MCP_AUTH_JWT_ALGORITHM", "must be one of HS256"},
		{"jwt key of the wrong kind", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": ecPEM}, "MCP_AUTH_JWT_PUBLIC_KEY",
			"not an RSA public key"},
		{"jwt garbage key", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": "hello", "MCP_AUTH_JWT_ALGORITHM": "ES256"},
			"MCP_AUTH_JWT_PUBLIC_KEY", "not an EC public key"},
		{"jwt HS256 with a JWKS", map[string]string{"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_JWKS_URI": "https://x/jwks", "MCP_AUTH_JWT_ALGORITHM": "HS256"},
			"MCP_AUTH_JWT_JWKS_URI", "needs the shared secret"},
		{"shutdown timeout", map[string]string{"SHUTDOWN_TIMEOUT_S": "0"}, "SHUTDOWN_TIMEOUT_S", "greater than 0"},
		{"client id fallback", map[string]string{"MCP_AUTH_JWT_CLIENT_ID_FALLBACK": "maybe"}, "MCP_AUTH_JWT_CLIENT_ID_FALLBACK",
			"must be a boolean: true, false, 1, 0, yes, no, on or off"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["DB_PATH"] = "/tmp/x.db"
			_, err := setup.FromEnv(lookupMap(tc.env))
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *Error", err)
			}
			if ce.Var != tc.wantVar || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %s (var %s), want var %s and %q", err, ce.Var, tc.wantVar, tc.want)
			}
			if strings.Contains(err.Error(), "BEGIN PUBLIC KEY") {
				t.Fatalf("the key leaked into the message: %s", err)
			}
		})
	}

	c, err := setup.FromEnv(lookupMap(map[string]string{
		"DB_PATH": "/tmp/x.db", "MCP_TRANSPORT": "streamable-http", "FASTMCP_HOST": "127.0.0.1", "FASTMCP_PORT": "9123",
		"FASTMCP_JSON_RESPONSE": "true", "FASTMCP_STATELESS_HTTP": "false",
		"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": strings.ReplaceAll(ecPEM, "\n", `\n`), "MCP_AUTH_JWT_ALGORITHM": "ES256",
	}))
	if err != nil {
		t.Fatalf("valid http config: %v", err)
	}
	if c.Transport != "http" || c.HTTP.Addr() != "127.0.0.1:9123" || !c.HTTP.JSONResponse || !c.HTTP.Stateful || c.HTTP.Auth == nil || c.AuthProvider != "jwt" {
		t.Fatalf("http config: %+v", c)
	}
	tok, _ := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"sub": "eve", "exp": time.Now().Add(time.Minute).Unix()}).SignedString(ecKey)
	p, err := c.HTTP.Auth(context.Background(), tok)
	if err != nil || p.ID != "eve" {
		t.Fatalf("ES256 token through the configured verifier: %+v %v", p, err)
	}
	// A token without sub is refused unless MCP_AUTH_JWT_CLIENT_ID_FALLBACK
	// is on: a client id could otherwise take a user's name.
	noSub, _ := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"client_id": "eve", "exp": time.Now().Add(time.Minute).Unix()}).SignedString(ecKey)
	if p, err := c.HTTP.Auth(context.Background(), noSub); err == nil || err.Error() != "token has no sub claim" {
		t.Fatalf("token without sub, fallback off (the default): %+v %v", p, err)
	}
	cf, err := setup.FromEnv(lookupMap(map[string]string{
		"DB_PATH": "/tmp/x.db", "MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": ecPEM, "MCP_AUTH_JWT_ALGORITHM": "ES256",
		"MCP_AUTH_JWT_CLIENT_ID_FALLBACK": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := cf.HTTP.Auth(context.Background(), noSub); err != nil || p.ID != "eve" {
		t.Fatalf("token without sub, fallback on: %+v %v", p, err)
	}
	d, err := setup.FromEnv(lookupMap(map[string]string{"DB_PATH": "/tmp/x.db"}))
	if err != nil || d.Transport != "stdio" || d.HTTP.Addr() != "0.0.0.0:8000" || d.HTTP.Stateful || d.HTTP.JSONResponse || d.AuthProvider != "none" {
		t.Fatalf("defaults: %+v %v", d, err)
	}
}

// TestOperatorRoleDefault: get_statistics' deployment-wide figures need
// the operator role on HTTP with JWT (several principals), nothing
// elsewhere; ACCESS_CONTROL_OPERATOR_ROLE overrides, set empty too.
func TestOperatorRoleDefault(t *testing.T) {
	_, ecPEM := ecTestKey(t)
	jwtHTTP := map[string]string{"DB_PATH": "/tmp/x.db", "MCP_TRANSPORT": "http",
		"MCP_AUTH_PROVIDER": "jwt", "MCP_AUTH_JWT_PUBLIC_KEY": ecPEM, "MCP_AUTH_JWT_ALGORITHM": "ES256"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range jwtHTTP {
			m[a] = b
		}
		m[k] = v
		return m
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"stdio", map[string]string{"DB_PATH": "/tmp/x.db"}, ""},
		{"http without auth", map[string]string{"DB_PATH": "/tmp/x.db", "MCP_TRANSPORT": "http", "FASTMCP_HOST": "127.0.0.1"}, ""},
		{"stdio with a jwt provider (ignored)", with("MCP_TRANSPORT", "stdio"), ""},
		{"http with jwt", jwtHTTP, "operator"},
		{"http with jwt, set", with("ACCESS_CONTROL_OPERATOR_ROLE", " ops "), "ops"},
		{"http with jwt, set empty", with("ACCESS_CONTROL_OPERATOR_ROLE", ""), ""},
		{"stdio, set", map[string]string{"DB_PATH": "/tmp/x.db", "ACCESS_CONTROL_OPERATOR_ROLE": "ops"}, "ops"},
	} {
		c, err := setup.FromEnv(lookupMap(tc.env))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.Engine.OperatorRole != tc.want {
			t.Errorf("%s: OperatorRole %q, want %q", tc.name, c.Engine.OperatorRole, tc.want)
		}
	}
}
