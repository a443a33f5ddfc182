package request

import "regexp"

// DefaultPrincipal is the principal of calls that carry none
// (ACCESS_CONTROL_DEFAULT_PRINCIPAL's default).
const DefaultPrincipal = "local"

// PrincipalPattern is the syntax of a default principal.
var PrincipalPattern = regexp.MustCompile(`^[A-Za-z0-9._@:+-]{1,128}$`)

// ValidPrincipal reports whether id may be the default principal: 1 to 128
// characters of A-Z a-z 0-9 . _ @ : + -. It is here, below both, so that
// package config checks the variable with the rule server.New applies.
func ValidPrincipal(id string) bool { return PrincipalPattern.MatchString(id) }
