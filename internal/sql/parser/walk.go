package parser

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Walk calls visit for m and, while visit returns true, for every message
// below it (list elements included), depth first. It walks the parse tree
// generically, through protobuf reflection, so a new or rarely used node
// kind can never hide what a caller looks for; visit returns false to skip
// a subtree (e.g. a sub-select whose contents belong to another query level).
func Walk(m proto.Message, visit func(proto.Message) bool) {
	if m == nil {
		return
	}
	walk(m.ProtoReflect(), visit)
}

func walk(m protoreflect.Message, visit func(proto.Message) bool) {
	if !m.IsValid() || !visit(m.Interface()) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walk(l.Get(i).Message(), visit)
			}
			return true
		}
		walk(v.Message(), visit)
		return true
	})
}

// Location is the leftmost source position (0-based byte offset) recorded
// anywhere in the subtree m, or -1: what PostgreSQL's exprLocation gives
// for an expression error's cursor in the usual cases.
func Location(m proto.Message) int32 {
	loc := int32(-1)
	Walk(m, func(n proto.Message) bool {
		r := n.ProtoReflect()
		if fd := r.Descriptor().Fields().ByName("location"); fd != nil && fd.Kind() == protoreflect.Int32Kind {
			if l := int32(r.Get(fd).Int()); l >= 0 && (loc < 0 || l < loc) {
				loc = l
			}
		}
		return true
	})
	return loc
}
