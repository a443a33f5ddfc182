package request

import (
	"encoding/base64"
	"github.com/contextd/contextd/api"
	"regexp"
	"strings"

	"github.com/contextd/contextd/cerrors"
	"github.com/contextd/contextd/index/pyfmt"
	"github.com/contextd/contextd/persist"
)

// ImageInput is one image of a store or update request as the caller sent
// it (the engine's ImageInput converts to it).
type ImageInput = api.ImageInput

var dataURLPrefix = regexp.MustCompile(`(?i)^data:[^,]*;base64,`)

// DecodeImages validates images in the documented order and returns them
// decoded. o.Batch selects the short base64 message of the batch tools.
func DecodeImages(imgs []ImageInput, o Options) ([]persist.Image, error) {
	if len(imgs) > MaxImages {
		return nil, cerrors.Invalidf("Too many images: %d provided, maximum is %d per entry", len(imgs), MaxImages)
	}
	out := make([]persist.Image, 0, len(imgs))
	var total int64
	perImageMB, totalMB := o.imageLimits()
	perImage := int64(perImageMB) << 20
	totalMax := int64(totalMB) << 20
	for i, im := range imgs {
		if pyfmt.Strip(im.Data) == "" {
			return nil, cerrors.Invalidf(`Image %d has empty "data" field`, i)
		}
		if msg := Unstorable("A string value", im.MimeType); msg != "" {
			return nil, cerrors.Invalidf("Image %d mime_type: %s", i, msg)
		}
		if im.Metadata != nil {
			if msg := Unstorable("A string value", *im.Metadata); msg != "" {
				return nil, cerrors.Invalidf("Image %d metadata: %s", i, msg)
			}
		}
		data, err := DecodeBase64(im.Data)
		if err != nil {
			if o.Batch {
				return nil, cerrors.Invalidf("Image %d has invalid base64 encoding", i)
			}
			return nil, cerrors.Invalidf("Image %d has invalid base64 encoding: Invalid base64 data (%v)", i, err)
		}
		if len(data) == 0 {
			return nil, cerrors.Invalidf(`Image %d "data" decodes to zero bytes (not valid base64 image content)`, i)
		}
		if int64(len(data)) > perImage {
			return nil, cerrors.Invalidf("Image %d exceeds %dMB limit", i, perImageMB)
		}
		total += int64(len(data))
		if total > totalMax {
			return nil, cerrors.Invalidf("Total image size exceeds %dMB limit", totalMB)
		}
		mime := im.MimeType
		if mime == "" {
			mime = "image/png"
		}
		out = append(out, persist.Image{Data: data, MimeType: mime, Metadata: im.Metadata})
	}
	return out, nil
}

// DecodeBase64 accepts a data-URL prefix, white space and the URL-safe
// alphabet, pads, then decodes strictly.
func DecodeBase64(s string) ([]byte, error) {
	s = dataURLPrefix.ReplaceAllString(s, "")
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			return -1
		case '-':
			return '+'
		case '_':
			return '/'
		}
		return r
	}, s)
	if n := len(s) % 4; n != 0 {
		s += strings.Repeat("=", 4-n)
	}
	return base64.StdEncoding.Strict().DecodeString(s)
}
