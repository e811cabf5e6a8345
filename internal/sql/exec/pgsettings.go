package exec

import (
	"strings"

	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/sql/types"
)

// pg_settings: one row per parameter SHOW ALL lists, with the session's
// current value in base units (as PostgreSQL's setting column, unlike
// SHOW's unit-scaled text).
func init() {
	textArray := types.Type{OID: types.TextArrayOID, Typmod: -1}
	systemViews["pg_settings"] = &systemView{cols: colSpec(
		"name", types.Text, "setting", types.Text, "unit", types.Text, "category", types.Text,
		"short_desc", types.Text, "extra_desc", types.Text, "context", types.Text, "vartype", types.Text,
		"source", types.Text, "min_val", types.Text, "max_val", types.Text, "enumvals", textArray,
		"boot_val", types.Text, "reset_val", types.Text, "sourcefile", types.Text, "sourceline", types.Int4,
		"pending_restart", types.Boolean),
		rows: func(c *Ctx) ([]Row, error) {
			var out []Row
			for _, n := range guc.Names() {
				d, _ := guc.Lookup(n)
				if !d.Shown() {
					continue
				}
				if err := c.checkCancel(); err != nil {
					return nil, err
				}
				row, err := settingRow(c, d, textArray)
				if err != nil {
					return nil, err
				}
				out = append(out, row)
			}
			return out, nil
		},
	}
}

func settingRow(c *Ctx, d *guc.Def, textArray types.Type) (Row, error) {
	text := func(s string) types.Datum { return types.Str(s) }
	orNull := func(s string) types.Datum {
		if s == "" {
			return types.Null()
		}
		return types.Str(s)
	}
	setting := d.Default
	if c.Setting != nil {
		setting = c.Setting(d.Name)
	}
	source, reset := "default", d.Default
	if c.Session != nil {
		source, reset = c.Session.SettingSource(d.Name)
	}
	minVal, maxVal := types.Null(), types.Null()
	if lo, hi, ok := d.Bounds(); ok {
		minVal, maxVal = text(lo), text(hi)
	}
	enumVals := types.Null()
	if d.Kind == guc.Enum {
		v, err := types.Parse(textArray, `{"`+strings.Join(d.Enum, `","`)+`"}`)
		if err != nil {
			return nil, err
		}
		enumVals = v
	}
	return Row{text(d.Name), text(setting), orNull(d.Unit), text(d.Category()),
		orNull(d.ShortDesc()), orNull(d.ExtraDesc()), text(string(d.Context)), text(d.VarType()),
		text(source), minVal, maxVal, enumVals, text(d.Default), text(reset), types.Null(), types.Null(),
		types.Bool(false)}, nil
}
