// Package jsonv is an ordered JSON document model for the fake API server.
//
// The server stores objects schema-less, as JSON, and must edit them (set
// metadata, apply patches, swap .status) without reordering their fields or
// rewriting their numbers. encoding/json's map[string]any does both, so this
// package keeps objects as ordered member lists and numbers as their literal
// text.
//
// Files:
//
//	value.go   the model (Value, Member, Kind) and its accessors; Equal in linear time;
//	           Pruned, a copy without some members
//	parse.go   Parse: a strict parser with a depth limit, reporting duplicate keys
//	           (found through a hash in large objects); ParseGo of a Go value
//	encode.go  Marshal and Append: compact encoding with encoding/json's string
//	           escaping (kubeproto.AppendJSONString); EncodedSize
package jsonv
