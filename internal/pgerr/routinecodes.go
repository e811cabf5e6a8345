package pgerr

// SQLSTATE codes of routine definition and calls.
const (
	InvalidFunctionDefinition = "42P13"
	DuplicateFunction         = "42723"
	StatementTooComplex       = "54001" // stack depth limit exceeded
	TooManyArguments          = "54023"
	InvalidObjectName         = "42602"
)
