package cerrors_test

import (
	"errors"
	"testing"

	"github.com/contextd/contextd/cerrors"
)

func TestErrorCarriesKindAndText(t *testing.T) {
	err := error(cerrors.Invalidf("tags must be a list, got %s", "str"))
	if !errors.Is(err, cerrors.ErrInvalid) || errors.Is(err, cerrors.ErrNotFound) {
		t.Fatalf("kind: %v", err)
	}
	if err.Error() != "tags must be a list, got str" {
		t.Fatalf("text %q", err.Error())
	}
	var ce *cerrors.Error
	if !errors.As(err, &ce) || ce.Kind != cerrors.ErrInvalid {
		t.Fatalf("As: %v", ce)
	}
}
