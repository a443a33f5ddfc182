package sqlstore

import (
	"strconv"
	"strings"
)

// Builder builds one SQL statement and its positional arguments in a
// dialect.
type Builder struct {
	sb     strings.Builder
	args   []any
	d      Dialect
	dollar bool
	// ThreadFirst keeps a metadata equality from driving the statement
	// when a thread is given, so the thread's index does, or a list of ids
	// (the primary key does). Filter sets it; a dialect without hints
	// ignores it.
	ThreadFirst bool
}

// NewBuilder returns an empty builder in dialect d.
func NewBuilder(d Dialect) *Builder { return &Builder{d: d, dollar: d.Dollar()} }

// Dialect returns the builder's dialect.
func (b *Builder) Dialect() Dialect { return b.d }

// W writes SQL text.
func (b *Builder) W(s string) *Builder {
	b.sb.WriteString(s)
	return b
}

// Arg writes a placeholder bound to v.
func (b *Builder) Arg(v any) *Builder {
	b.args = append(b.args, v)
	if b.dollar {
		b.sb.WriteByte('$')
		b.sb.WriteString(strconv.Itoa(len(b.args)))
	} else {
		b.sb.WriteByte('?')
	}
	return b
}

// Typed writes a placeholder bound to v with a cast such as "::text[]"
// where the dialect keeps casts (Dialect.Dollar).
func (b *Builder) Typed(v any, cast string) *Builder {
	b.Arg(v)
	if b.dollar {
		b.sb.WriteString(cast)
	}
	return b
}

// IsIn writes "col IN (vals)" in the dialect (Dialect.In).
func (b *Builder) IsIn(col string, vals []string) *Builder {
	b.d.In(b, col, vals)
	return b
}

// String returns the statement.
func (b *Builder) String() string { return b.sb.String() }

// Args returns the bound arguments in placeholder order.
func (b *Builder) Args() []any { return b.args }

// Plan returns a builder holding prefix followed by b's statement, with
// b's arguments: an EXPLAIN of b.
func (b *Builder) Plan(prefix string) *Builder {
	p := &Builder{d: b.d, dollar: b.dollar, args: b.args}
	p.sb.WriteString(prefix)
	p.sb.WriteString(b.sb.String())
	return p
}

// Cast writes a cast such as "::bigint" after an expression where the
// dialect keeps casts (Dialect.Dollar).
func (b *Builder) Cast(cast string) *Builder {
	if b.dollar {
		b.sb.WriteString(cast)
	}
	return b
}

// OptionsOf reads the backend options a persist.OpenConfig carries: none,
// a T or a *T (nil is none). ok is false for any other type.
func OptionsOf[T any](v any) (o T, ok bool) {
	switch x := v.(type) {
	case nil:
	case T:
		o = x
	case *T:
		if x != nil {
			o = *x
		}
	default:
		return o, false
	}
	return o, true
}
