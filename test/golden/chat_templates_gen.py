"""Chat templates rendered as lm-eval's HFLM.apply_chat_template renders them with transformers 5 (the reference
runs' version): add_generation_prompt = not continue_final_message, and the retry without system messages on a
jinja2 TemplateError, for test/prompt/chatTemplates.test.ts. The templates are small stand-ins of common shapes
(Gemma-like: no system role; Mistral-like: alternation check; Zephyr-like: newlines under trim_blocks; Phi-3-like;
and one that rewrites the message, tojson and split, where transformers 5's continue_final_message marker decides
where the text is cut). The special tokens are qwen3-tiny's, with bos_token <s>.

    /work/venv-lmeval/bin/python test/golden/chat_templates_gen.py > test/golden/chat_templates.json
"""
import json
import sys

import jinja2
import transformers

TEMPLATES = {
    "gemma": "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}",
    "mistral": "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}",
    "zephyr": "{% for message in messages %}\n{% if message['role'] == 'user' %}\n{{ '<|user|>\\n' + message['content'] + eos_token }}\n{% elif message['role'] == 'system' %}\n{{ '<|system|>\\n' + message['content'] + eos_token }}\n{% elif message['role'] == 'assistant' %}\n{{ '<|assistant|>\\n'  + message['content'] + eos_token }}\n{% endif %}\n{% if loop.last and add_generation_prompt %}\n{{ '<|assistant|>' }}\n{% endif %}\n{% endfor %}",
    "phi3": "{% for message in messages %}{% if message['role'] == 'system' and message['content'] %}{{'<|system|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}",
    "rewrites": "{%- for m in messages -%}{{ m | tojson }}|{{ m.content | length }}|{{ m.content.split('\\n') | join('/') }}{%- if not loop.last %}\n{% endif -%}{%- endfor -%}{%- if add_generation_prompt %}<gen>{% endif %}",
}
MESSAGES = [
    [{"role": "system", "content": "You are a careful assistant.\n\n"}, {"role": "user", "content": "Q: 2+2?\nA:"},
     {"role": "assistant", "content": " 4"}, {"role": "user", "content": "  Q: 3+3?  \nA:"}],
    [{"role": "user", "content": "Question: é “x” 謝\nAnswer:"}],
    [{"role": "user", "content": "Question: x\nAnswer:"}, {"role": "assistant", "content": "The answer is"}],
    [{"role": "system", "content": "Sys"}, {"role": "user", "content": "Q"}, {"role": "assistant", "content": "Answer: "}],
]

tok = transformers.AutoTokenizer.from_pretrained("fixtures/models/qwen3-tiny")
tok.bos_token = "<s>"
cases = []
for name, template in TEMPLATES.items():
    tok.chat_template = template
    for messages in MESSAGES:
        gen = messages[-1]["role"] != "assistant"

        def render(chat):
            return tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=gen, continue_final_message=not gen)

        try:
            rendered = render(messages)
        except jinja2.exceptions.TemplateError:
            rendered = render([m for m in messages if m["role"] != "system"])
        cases.append({"template": name, "messages": messages, "add_generation_prompt": gen, "rendered": rendered})
json.dump({"transformers": transformers.__version__, "special_tokens": {"bos_token": "<s>", "eos_token": tok.eos_token, "pad_token": tok.pad_token},
           "templates": TEMPLATES, "cases": cases}, sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
