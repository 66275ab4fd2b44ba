// Package listscan reads a Kubernetes list response (a PodList, a
// ConfigMapList, any <Kind>List) from a stream, handing over each element of
// "items" as raw JSON while the body is being read, so a list of any size is
// processed in the memory of its largest item.
//
// The envelope is a JSON object with "kind", "apiVersion", "metadata" (a
// ListMeta) and "items", in any order; other keys are skipped. The envelope
// is checked strictly. Items (and skipped values) are checked structurally
// only: strings, escapes and matching brackets, which is enough to find
// where each ends; their own syntax is checked by whoever decodes them, as
// the watch frame decoder does for watch events.
//
// It sits under rest's List and ListItems, between the response body and
// the caller's callback.
//
// Files:
//
//	scan.go  Scan and ScanTyped, the errors and MaxItemSize, the scanner itself
package listscan
