#!/usr/bin/env bash
# The test command: every package's tests, then the concurrent packages
# again under the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -count=1 -timeout 20m ./...
go test -count=1 -race -timeout 20m ./internal/storage/... ./internal/xact/... ./internal/pgwire/... ./internal/access/tidstore/... ./internal/access/heap/... ./driver/...
