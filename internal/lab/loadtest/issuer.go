package loadtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer mints RS256 tokens for the load's principals with one key, as an
// identity provider would; the server verifies them with PublicPEM
// (MCP_AUTH_JWT_PUBLIC_KEY).
type Issuer struct {
	Name, Audience string
	key            *rsa.PrivateKey
}

// NewIssuer makes an issuer with a fresh 2048-bit key.
func NewIssuer(name, audience string) (*Issuer, error) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("issuer key: %w", err)
	}
	return &Issuer{Name: name, Audience: audience, key: k}, nil
}

// PublicPEM is the PEM-encoded public key the server verifies with.
func (is *Issuer) PublicPEM() (string, error) {
	der, err := x509.MarshalPKIXPublicKey(&is.key.PublicKey)
	if err != nil {
		return "", fmt.Errorf("issuer public key: %w", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// Token is a token for sub with groups, valid for a day.
func (is *Issuer) Token(sub string, groups []string) (string, error) {
	c := jwt.MapClaims{"sub": sub, "iss": is.Name, "aud": is.Audience,
		"exp": time.Now().Add(24 * time.Hour).Unix(), "nbf": time.Now().Add(-time.Minute).Unix()}
	if groups != nil {
		c["groups"] = groups
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodRS256, c).SignedString(is.key)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return s, nil
}
