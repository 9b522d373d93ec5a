package agents

import (
	"net/http"
	"slices"

	refactor "github.com/pharo-refactor/refactord"
)

// RoleHeader is the HTTP header every model provider sends with each
// request, naming the role the call is made for ("reviewer", "writer",
// "validator", "refiner"). A proxy's logs and a fake model server tell the
// roles apart by it, never by the wording of a prompt. It carries nothing
// from the method or the client; a request without a role sends none.
const RoleHeader = "X-Refactord-Role"

// RoleOf reads the RoleHeader of a model request: one of the domain's
// roles, or "" when the header is missing or names no role.
func RoleOf(r *http.Request) refactor.Role {
	role := refactor.Role(r.Header.Get(RoleHeader))
	if !slices.Contains(refactor.AllRoles(), role) {
		return ""
	}
	return role
}
