package testenv

import "net/http"

// AnsweredStatus is the status a run's JSON answer stands for: its HTTP
// status, or, for a run that failed after its 200 headers went out (the
// service commits them when the run reaches its first model call), the
// status its body names (a RunFailureBody: success false, and the
// problem's fields).
func AnsweredStatus(resp *http.Response, body map[string]any) int {
	if resp.StatusCode != http.StatusOK || body["success"] != false {
		return resp.StatusCode
	}
	status, _ := body["status"].(float64)
	return int(status)
}
