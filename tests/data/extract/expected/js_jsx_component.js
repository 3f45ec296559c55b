import React from "react";
import { useQuery } from "@tanstack/react-query";

export default function Users() {
  const { data } = useQuery({ queryKey: ["users"], queryFn: () => fetch("/api/users").then((r) => r.json()) });
  return <ul>{data?.map((u) => <li key={u.id}>{u.name}</li>)}</ul>;
}
