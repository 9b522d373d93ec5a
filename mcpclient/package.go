package mcpclient

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	refactor "github.com/pharo-refactor/refactord"
)

// Bounds of PackageClasses: a package name as Pharo allows it, and a
// package far larger than any real one.
const (
	maxPackageNameLen  = 256
	maxPackageClasses  = 100_000
	listClassesTool    = "list_classes"
	packageNameArgName = "package_name"
)

// validatePackageName refuses names no Pharo package has: empty, too long,
// or holding control characters or line breaks.
func validatePackageName(name string) error {
	if name == "" || len(name) > maxPackageNameLen || strings.TrimSpace(name) != name {
		return refactor.Errorf(refactor.InvalidRequest, "%.80q is not a package name", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return refactor.Errorf(refactor.InvalidRequest, "%.80q is not a package name", name)
		}
	}
	return nil
}

// PackageClasses lists the classes (and traits) a package defines, with
// the list_classes tool. An unknown package is a PharoError from the image.
func (c *Client) PackageClasses(ctx context.Context, pkg string) ([]string, error) {
	if err := validatePackageName(pkg); err != nil {
		return nil, err
	}
	var names []string
	if err := c.call(ctx, listClassesTool, map[string]any{packageNameArgName: pkg}, &names); err != nil {
		return nil, fmt.Errorf("listing the classes of package %s: %w", pkg, err)
	}
	if len(names) > maxPackageClasses {
		return nil, refactor.Errorf(refactor.PharoError, "package %s answered %d classes, over the limit of %d", pkg, len(names), maxPackageClasses)
	}
	return names, nil
}
