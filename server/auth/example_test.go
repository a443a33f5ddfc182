package auth_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/contextd/contextd"
	"github.com/contextd/contextd/server/auth"
)

// A shared token guards a handler; every accepted caller runs as the
// default principal.
func ExampleNew() {
	a, err := auth.New(auth.Config{Provider: "simple_token", Token: "s3cret"}, "local")
	if err != nil {
		fmt.Println(err)
		return
	}
	h := auth.Require(a, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := contextd.PrincipalFrom(r.Context())
		fmt.Fprint(w, p.ID)
	}))
	for _, token := range []string{"s3cret", "guess"} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		fmt.Println(rec.Code, rec.Body.String())
	}

	_, err = auth.New(auth.Config{Provider: "simple_token"}, "local")
	fmt.Println(err)
	// Output:
	// 200 local
	// 401 {"error":"invalid_token","error_description":"invalid token"}
	// auth: invalid Token "": Token cannot be empty.
}
