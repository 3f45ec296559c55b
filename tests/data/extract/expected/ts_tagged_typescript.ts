import { z } from "zod";

const User = z.object({ name: z.string(), age: z.number().int() });
type User = z.infer<typeof User>;

export function parseUser(input: unknown): User {
  return User.parse(input);
}
