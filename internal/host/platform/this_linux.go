package platform

// This is the platform this binary runs on. Tests may put another
// platform's answers here (and restore it) to check what a build for that
// platform would decide.
var This = Linux
