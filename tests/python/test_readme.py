"""Runs the README's "Use a plan in your training script" example verbatim, in a scratch folder with
the built `ckptx` on PATH."""
import os
import re
import subprocess
import sys
import unittest

import support


class Readme(unittest.TestCase):
    def test_training_script_example(self):
        with open(os.path.join(support.SOURCE, "README.md"), encoding="utf-8") as f:
            text = f.read()
        section = text[text.index("## Use a plan in your training script"):]
        code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
        env = dict(os.environ, PATH=support.BIN + os.pathsep + os.environ.get("PATH", ""),
                   PYTHONPATH=os.path.join(support.SOURCE, "app", "python"))
        with support.scratch() as folder:
            run = subprocess.run([sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertTrue(os.path.exists(os.path.join(folder, "plan.json")))


if __name__ == "__main__":
    unittest.main()
