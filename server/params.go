package server

import (
	"bytes"
	"encoding/json"
)

// ptype is the JSON type of a tool parameter.
type ptype string

const (
	tString  ptype = "string"
	tInteger ptype = "integer"
	tNumber  ptype = "number"
	tBoolean ptype = "boolean"
	tArray   ptype = "array"
	tObject  ptype = "object"
	tAny     ptype = "any" // no type constraint, passed through as decoded
)

// param declares one tool parameter. The same declaration produces the
// advertised JSON Schema (schema) and drives the argument decoder (decode.go),
// so what a client is told and what the server accepts never drift apart.
// Zero values mean "no constraint".
type param struct {
	name     string
	typ      ptype
	required bool
	desc     string

	enum               []string // allowed string values
	min, max           *int64   // integer bounds, inclusive
	minLength          int      // string length in code points
	maxLength          int      // string length in code points
	minItems, maxItems int      // array length
	items              *param   // element declaration of an array
	props              []param  // known properties of an object (schema only)
	def                any      // documented default (schema only)

	// noNUL rejects a string (or string element) containing U+0000 with the
	// reference "cannot store" message naming the parameter.
	noNUL bool
	// empty, when set, replaces the generic minLength message for "".
	empty string
	// tooMany, when set, replaces the generic maxItems message; it is a
	// format with one %d verb for the number of items given.
	tooMany string
	// tooLong, when set on an array's string element, replaces the generic
	// maxLength message; a format with %d verbs for the index and the length.
	tooLong string
}

func i64(v int64) *int64 { return &v }

// ordered is a JSON object whose keys keep their declaration order, so the
// generated schemas list properties the way the reference documents them.
type ordered []kv

type kv struct {
	k string
	v any
}

func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(e.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshalJSON(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// schema returns the JSON Schema of one parameter.
func (p *param) schema() ordered {
	var s ordered
	add := func(k string, v any) { s = append(s, kv{k, v}) }
	if p.typ != tAny && p.typ != "" {
		add("type", string(p.typ))
	}
	if p.desc != "" {
		add("description", p.desc)
	}
	if len(p.enum) > 0 {
		add("enum", p.enum)
	}
	if p.min != nil {
		add("minimum", *p.min)
	}
	if p.max != nil {
		add("maximum", *p.max)
	}
	if p.minLength > 0 {
		add("minLength", p.minLength)
	}
	if p.maxLength > 0 {
		add("maxLength", p.maxLength)
	}
	if p.minItems > 0 {
		add("minItems", p.minItems)
	}
	if p.maxItems > 0 {
		add("maxItems", p.maxItems)
	}
	if p.items != nil {
		add("items", p.items.schema())
	}
	if len(p.props) > 0 {
		props, req := objectSchema(p.props)
		add("properties", props)
		if len(req) > 0 {
			add("required", req)
		}
	}
	if p.def != nil {
		add("default", p.def)
	}
	return s
}

func objectSchema(params []param) (props ordered, required []string) {
	props = ordered{}
	for i := range params {
		p := &params[i]
		props = append(props, kv{p.name, p.schema()})
		if p.required {
			required = append(required, p.name)
		}
	}
	return props, required
}

// inputSchema returns the input JSON Schema of a tool taking params: an
// object that accepts exactly the declared properties.
func inputSchema(params []param) json.RawMessage {
	props, req := objectSchema(params)
	s := ordered{{"type", "object"}, {"properties", props}}
	if len(req) > 0 {
		s = append(s, kv{"required", req})
	}
	s = append(s, kv{"additionalProperties", false})
	b, err := marshalJSON(s)
	if err != nil {
		panic("server: unmarshalable schema: " + err.Error()) // static declarations only
	}
	return b
}

// Parameter declarations shared by several tools.

var (
	sourceEnum      = []string{"user", "agent"}
	visibilityEnum  = []string{"private", "public"}
	contentTypeEnum = []string{"text", "multimodal"}
)

// imageItem is one element of an images parameter.
var imageItem = &param{
	typ:  tObject,
	desc: "One image attachment.",
	props: []param{
		{name: "data", typ: tString, required: true,
			desc: "Base64-encoded image bytes. A data:<mime>;base64, prefix, line breaks and URL-safe base64 are accepted and normalized."},
		{name: "mime_type", typ: tString,
			desc: "MIME type of the image (default image/png)."},
		{name: "metadata", typ: tString,
			desc: "The image's own metadata as a JSON-encoded STRING (not an object), returned verbatim; an empty string round-trips as an empty string."},
	},
}

func imagesParam(desc string) param {
	return param{name: "images", typ: tArray, desc: desc, maxItems: 10, items: imageItem,
		tooMany: "Too many images: %d provided, maximum is 10 per entry"}
}

func writeTagsParam(desc string) param {
	return param{name: "tags", typ: tArray, desc: desc, maxItems: 100,
		tooMany: "Too many tags: %d provided, maximum is 100 per entry",
		items: &param{typ: tString, maxLength: 128, noNUL: true,
			tooLong: "Tag %d is too long: %d characters, maximum is 128 characters per tag"}}
}

func contextIDsParam(required bool, desc string) param {
	return param{name: "context_ids", typ: tArray, required: required, desc: desc,
		minItems: 1, maxItems: 100, items: &param{typ: tString}}
}
