package setup_test

// lookupMap is a lookup over env, as os.LookupEnv is over the process's.
func lookupMap(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}
