package pgerr

// The ErrorResponse fields that name the object an error is about (schema
// 's', table 't', column 'c', data type 'd', constraint 'n'). PostgreSQL
// sets them for integrity violations (errtable, errtablecol,
// errtableconstraint, errdomainconstraint) so that clients can act on the
// constraint without parsing the message: psycopg2's Diagnostics,
// node-postgres' err.constraint, pgx's PgError.

// WithTable sets the schema and table fields (errtable).
func (e *Error) WithTable(schema, table string) *Error {
	e.SchemaName, e.TableName = schema, table
	return e
}

// WithColumn sets the schema, table and column fields (errtablecol).
func (e *Error) WithColumn(schema, table, column string) *Error {
	e.SchemaName, e.TableName, e.ColumnName = schema, table, column
	return e
}

// WithConstraint sets the schema, table and constraint fields
// (errtableconstraint).
func (e *Error) WithConstraint(schema, table, constraint string) *Error {
	e.SchemaName, e.TableName, e.ConstraintName = schema, table, constraint
	return e
}

// WithDataType sets the schema and data type fields (errdatatype).
func (e *Error) WithDataType(schema, typ string) *Error {
	e.SchemaName, e.DataTypeName = schema, typ
	return e
}

// WithDomainConstraint sets the schema, data type and constraint fields
// (errdomainconstraint).
func (e *Error) WithDomainConstraint(schema, typ, constraint string) *Error {
	e.SchemaName, e.DataTypeName, e.ConstraintName = schema, typ, constraint
	return e
}
