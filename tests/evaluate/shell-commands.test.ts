import { describe, expect, it } from "vitest";
import { findSimpleCommands } from "../../src/evaluate/shell-commands.js";

/** The words of each simple command, in completion order. */
const commandsOf = (script: string) =>
  findSimpleCommands(script).map((command) => command.words.map((w) => w.text));

describe("findSimpleCommands", () => {
  it("splits on control operators and newlines", () => {
    expect(commandsOf("a 1; b 2 && c || d | e |& f & g\nh")).toEqual([
      ["a", "1"],
      ["b", "2"],
      ["c"],
      ["d"],
      ["e"],
      ["f"],
      ["g"],
      ["h"],
    ]);
  });

  it("removes quotes, keeps operators inside quotes as text, drops redirections and fd numbers", () => {
    expect(commandsOf(`t 'a; b' "c | d" e\\ f 2>&1 >out <in &>/dev/null >&2 3>>log g`)).toEqual([
      ["t", "a; b", "c | d", "e f", "g"],
    ]);
  });

  it("reads substitutions as commands that complete before the one containing them", () => {
    expect(commandsOf('x=$(t list) echo "$(u a)" `v b` <(w c)')).toEqual([
      ["t", "list"],
      ["u", "a"],
      ["v", "b"],
      ["w", "c"],
      ["x=$(t list)", "echo", "$(u a)", "`v b`", "<(w c)"],
    ]);
  });

  it("skips reserved words, comments and heredoc bodies", () => {
    const script = [
      "if t check; then echo ok; else t fix; fi # t comment",
      'while read l; do t add "$l"; done < list',
      "cat <<EOF > out",
      "t not-run",
      "EOF",
      "cat <<-'END'",
      "\tt not-run-either",
      "\tEND",
      "{ t a; } && ! t b",
    ].join("\n");
    expect(commandsOf(script)).toEqual([
      ["t", "check"],
      ["echo", "ok"],
      ["t", "fix"],
      ["read", "l"],
      ["t", "add", "$l"],
      ["cat"],
      ["cat"],
      ["t", "a"],
      ["t", "b"],
    ]);
  });

  it("reads subshells and leaves parameter and arithmetic expansions and array assignments whole", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
    const script = "(cd d && t x) | tee o; echo ${a:-b c} $((1 + 2)); arr=(a b) t y";
    expect(commandsOf(script)).toEqual([
      ["cd", "d"],
      ["t", "x"],
      ["tee", "o"],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash ${...}, on purpose
      ["echo", "${a:-b c}", "$((1 + 2))"],
      ["arr=(a b)", "t", "y"],
    ]);
  });

  it("ends each command where its operator is", () => {
    const script = "t a | head; u";
    expect(
      findSimpleCommands(script).map((command) => script.slice(command.words[0]?.start, command.end)),
    ).toEqual(["t a ", "head", "u"]);
  });

  it("terminates on unbalanced input", () => {
    for (const script of ["t 'open", 't "open $(x', "t $(", "t ${", "cat <<EOF\nno end", "t `x", "((", ")"]) {
      expect(() => findSimpleCommands(script)).not.toThrow();
    }
  });
});
