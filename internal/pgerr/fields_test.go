package pgerr

import (
	"errors"
	"fmt"
	"testing"
)

func TestObjectFieldsSurviveWrapping(t *testing.T) {
	e := Errorf(UniqueViolation, "duplicate key value violates unique constraint \"t_pkey\"").
		WithConstraint("public", "t", "t_pkey")
	got := From(fmt.Errorf("insert: %w", e))
	if got.SchemaName != "public" || got.TableName != "t" || got.ConstraintName != "t_pkey" || got.ColumnName != "" {
		t.Fatalf("fields after wrapping: %+v", got)
	}
	col := Errorf(NotNullViolation, "null value").WithColumn("public", "t", "a")
	if col.ColumnName != "a" || col.TableName != "t" || col.ConstraintName != "" {
		t.Fatalf("WithColumn: %+v", col)
	}
	if !errors.Is(error(col), col) {
		t.Fatal("errors.Is")
	}
}
