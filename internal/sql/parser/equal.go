package parser

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// EqualIgnoringLocations compares two parse trees (or subtrees) except for
// their location fields and statement lengths, which differ between texts
// whose tokens sit at different offsets. It is meant for tests and checks:
// it copies both trees.
func EqualIgnoringLocations(a, b proto.Message) bool {
	return proto.Equal(withoutLocations(a), withoutLocations(b))
}

func withoutLocations(m proto.Message) proto.Message {
	c := proto.Clone(m)
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Name() == "location" || fd.Name() == "stmt_location" || fd.Name() == "stmt_len":
				m.Clear(fd)
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return true
		})
	}
	walk(c.ProtoReflect())
	return c
}
