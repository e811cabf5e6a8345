// Package pgerr is the one error type that crosses tidal's layers and reaches
// clients: a PostgreSQL-style error with severity and SQLSTATE.
//
// Lower layers return *Error values (or wrap them with fmt.Errorf("...: %w"));
// the wire layer finds them with errors.As and sends their fields unchanged.
// Any other error reaching a client is reported as XX000 internal_error.
package pgerr

import (
	"errors"
	"fmt"
	"syscall"
)

// SQLSTATE codes used by tidal, with PostgreSQL's condition names.
const (
	SuccessfulCompletion          = "00000"
	Warning                       = "01000"
	ConnectionException           = "08000"
	ProtocolViolation             = "08P01"
	FeatureNotSupported           = "0A000"
	CardinalityViolation          = "21000"
	DataException                 = "22000"
	StringDataRightTruncation     = "22001"
	NumericValueOutOfRange        = "22003"
	NullValueNotAllowed           = "22004"
	InvalidDatetimeFormat         = "22007"
	DatetimeFieldOverflow         = "22008"
	IntervalFieldOverflow         = "22015"
	InvalidTimeZoneDisplacement   = "22009"
	DivisionByZero                = "22012"
	InvalidParameterValue         = "22023"
	InvalidArgumentForLog         = "2201E"
	ArraySubscriptError           = "2202E"
	InvalidTextRepresentation     = "22P02"
	CharacterNotInRepertoire      = "22021"
	IntegrityConstraintViolation  = "23000"
	NotNullViolation              = "23502"
	ForeignKeyViolation           = "23503"
	UniqueViolation               = "23505"
	CheckViolation                = "23514"
	InvalidTransactionState       = "25000"
	ActiveSQLTransaction          = "25001"
	NoActiveSQLTransaction        = "25P01"
	InFailedSQLTransaction        = "25P02"
	ReadOnlySQLTransaction        = "25006"
	InvalidSavepointSpecification = "3B001"
	InvalidAuthorizationSpec      = "28000"
	InvalidPassword               = "28P01"
	DependentObjectsStillExist    = "2BP01"
	InvalidCatalogName            = "3D000"
	InvalidSchemaName             = "3F000"
	SerializationFailure          = "40001"
	DeadlockDetected              = "40P01"
	SyntaxError                   = "42601"
	InsufficientPrivilege         = "42501"
	InvalidGrantOperation         = "0LP01"
	UndefinedColumn               = "42703"
	UndefinedFunction             = "42883"
	UndefinedTable                = "42P01"
	UndefinedParameter            = "42P02"
	UndefinedObject               = "42704"
	DuplicateColumn               = "42701"
	DuplicateObject               = "42710"
	DuplicateTable                = "42P07"
	DuplicateSchema               = "42P06"
	ReservedName                  = "42939"
	AmbiguousColumn               = "42702"
	AmbiguousFunction             = "42725"
	DatatypeMismatch              = "42804"
	WrongObjectType               = "42809"
	GroupingError                 = "42803"
	WindowingError                = "42P20"
	// InvalidPrecedingOrFollowingSize: a negative window frame offset.
	InvalidPrecedingOrFollowingSize = "22013"
	InvalidArgumentForNtile         = "22014"
	InvalidArgumentForNthValue      = "22016"
	InvalidColumnReference          = "42P10"
	InvalidForeignKey               = "42830"
	InvalidTableDefinition          = "42P16"
	InvalidColumnDefinition         = "42611"
	InvalidObjectDefinition         = "42P17"
	ProgramLimitExceeded            = "54000"
	TooManyColumns                  = "54011"
	DiskFull                        = "53100"
	OutOfMemory                     = "53200"
	ConfigurationLimitExceeded      = "53400"
	TooManyConnections              = "53300"
	ObjectNotInPrerequisiteState    = "55000"
	CantChangeRuntimeParam          = "55P02"
	LockNotAvailable                = "55P03"
	QueryCanceled                   = "57014"
	AdminShutdown                   = "57P01"
	IOError                         = "58030"
	UndefinedFile                   = "58P01"
	ConfigFileError                 = "F0000"
	InternalError                   = "XX000"
	DataCorrupted                   = "XX001"
)

// Severity values as PostgreSQL spells them.
const (
	SevError   = "ERROR"
	SevFatal   = "FATAL"
	SevPanic   = "PANIC"
	SevWarning = "WARNING"
	SevNotice  = "NOTICE"
	SevInfo    = "INFO"
	SevLog     = "LOG"
)

// Error is a PostgreSQL-style error or notice.
type Error struct {
	Severity string // ERROR unless set
	Code     string // SQLSTATE
	Message  string
	Detail   string
	Hint     string
	Position int32  // 1-based character position in the query, 0 if unknown
	Where    string // context, e.g. `COPY t, line 2, column a: "x"` (psql's CONTEXT:)
	// The object the error is about, where PostgreSQL names it (fields.go).
	SchemaName     string
	TableName      string
	ColumnName     string
	DataTypeName   string
	ConstraintName string

	// ctx backs Where while AddContext grows it; ctxOwner is the Error
	// that may append to ctx in place (a copy of the struct may not).
	ctx      []byte
	ctxOwner *Error
}

func (e *Error) Error() string {
	return e.Message
}

// Errorf makes an ERROR with the given SQLSTATE.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Severity: SevError, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Noticef makes a message of a lower severity (NOTICE, INFO, WARNING).
func Noticef(severity, code, format string, args ...any) *Error {
	return &Error{Severity: severity, Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetail returns e with Detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
}

// WithHint returns e with Hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// From finds the *Error inside err, or makes an internal_error from it.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		if pe.Severity == "" {
			pe.Severity = SevError
		}
		return pe
	}
	return &Error{Severity: SevError, Code: InternalError, Message: err.Error()}
}

// Code returns the SQLSTATE of err, or "" if err carries none.
func Code(err error) string {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Strerror renders an OS error as PostgreSQL's %m does ("No space left
// on device"): the errno's text with a capital first letter, else the
// error's own text.
func Strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	return err.Error()
}
