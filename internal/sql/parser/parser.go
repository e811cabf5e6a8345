// Package parser wraps PostgreSQL's own grammar (pg_query_go) so the rest of
// tidal sees one entry point for turning SQL text into parse trees.
package parser

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Parse returns the raw statements of a query string.
func Parse(sql string) (*pg_query.ParseResult, error) {
	return pg_query.Parse(sql)
}
