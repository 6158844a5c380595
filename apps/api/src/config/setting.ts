import * as v from 'valibot';

/** How a setting's text is read: its schema turns the text into the value, or into problems. */
export type SettingValue<Value> = v.GenericSchema<string, Value>;

/**
 * Declares a setting: its environment variable, how its text is read, and its default written as
 * one would set it (`'64kb'`, not 65536), read as if it had been set. Without a default, an unset
 * variable gives undefined. Messages follow the variable's name: "must be on or off, not "yes"".
 */
export function setting<
  const Variable extends string,
  const Value extends SettingValue<unknown>,
  const Default extends string | undefined = undefined,
>(variable: Variable, value: Value, fallback?: Default) {
  return { variable, schema: v.optional(value, fallback as Default) };
}

/** What reading a setting's text gave: its value, or every problem found in it (at least one). */
export type Reading<Value> = { readonly value: Value } | { readonly problems: readonly string[] };

/** A setting read by a function that may find several problems at once (a list of tokens, a file): all are reported. */
export function reading<Value>(read: (text: string) => Reading<Value>): SettingValue<Value> {
  return v.pipe(
    v.string(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const result = read(dataset.value);
      if ('value' in result) return result.value;
      for (const message of result.problems) addIssue({ message });
      return NEVER;
    }),
  );
}
