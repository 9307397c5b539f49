-- Neovim (0.7+, headless) as a real LSP client of `denpex serve`: open a rank log and a launch script, collect the
-- diagnostics, a hover, and the quick-fix applied through Neovim's own WorkspaceEdit code; write what happened as
-- JSON for run_nvim_test.py to check.
-- env: DENPEX_SERVER_CMD (JSON array), DENPEX_WORKDIR (holds train_8ranks.log and train.sbatch), DENPEX_OUT.
-- Exit 0 when every step ran (the checks are the driver's), 2 when a step failed (the reason is in DENPEX_OUT).
local result = {}

local function wait_for(ms, what, cond)
  if not vim.wait(ms, cond, 20) then error("timed out waiting for " .. what) end
end

local function diagnostics_of(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(out, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
                        severity = d.severity, message = d.message, code = d.code or lsp.code,
                        related = lsp.relatedInformation and #lsp.relatedInformation or 0 })
  end
  table.sort(out, function(a, b) return a.lnum < b.lnum end)
  return out
end

local function main()
  local cmd_json = os.getenv("DENPEX_SERVER_CMD")
  assert(cmd_json, "DENPEX_SERVER_CMD is not set")
  local cmd = vim.fn.json_decode(cmd_json)
  local dir = os.getenv("DENPEX_WORKDIR")
  assert(dir, "DENPEX_WORKDIR is not set")
  local published = {}
  local last_raw = {}   -- the server's own LSP diagnostics, before Neovim converts ranges to byte columns
  local client_id = vim.lsp.start_client({
    name = "denpex",
    cmd = cmd,
    root_dir = dir,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(err, res, ctx, config)
        published[res.uri] = (published[res.uri] or 0) + 1
        last_raw[res.uri] = res.diagnostics
        vim.lsp.diagnostic.on_publish_diagnostics(err, res, ctx, config)
      end,
    },
  })
  assert(client_id, "start_client failed")
  local client = vim.lsp.get_client_by_id(client_id)

  -- 1. A rank log: diagnostics and a hover.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/train_8ranks.log"))
  local log = vim.api.nvim_get_current_buf()
  vim.bo[log].filetype = "log"   -- -u NONE: no filetype detection; languageId comes from the filetype
  vim.lsp.buf_attach_client(log, client_id)
  wait_for(10000, "initialize", function() return client.initialized end)
  result.offset_encoding = client.offset_encoding
  wait_for(10000, "diagnostics on the log", function() return #vim.diagnostic.get(log) > 0 end)
  result.log_diagnostics = diagnostics_of(log)
  for _, d in ipairs(last_raw[vim.uri_from_bufnr(log)] or {}) do
    if d.severity == 1 then result.log_error_lsp_range = d.range end
  end
  local pos = { textDocument = { uri = vim.uri_from_bufnr(log) }, position = { line = 33, character = 60 } }
  local hover = client.request_sync("textDocument/hover", pos, 10000, log)
  assert(hover and hover.result, "no hover result: " .. vim.inspect(hover))
  result.hover = hover.result.contents.value
  result.hover_kind = hover.result.contents.kind

  -- 2. A launch script: the Warning, the quick-fix, the edit applied by Neovim, and the Warning gone.
  vim.cmd("edit " .. vim.fn.fnameescape(dir .. "/train.sbatch"))
  local script = vim.api.nvim_get_current_buf()
  vim.bo[script].filetype = "sh"
  vim.lsp.buf_attach_client(script, client_id)
  local script_uri = vim.uri_from_bufnr(script)
  wait_for(10000, "diagnostics on the script", function() return #vim.diagnostic.get(script) > 0 end)
  result.script_diagnostics = diagnostics_of(script)
  local line = result.script_diagnostics[1].lnum
  local ca = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = script_uri },
    range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = 0 } },
    context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(script, line) },
  }, 10000, script)
  assert(ca and ca.result and ca.result[1] and ca.result[1].edit, "no code action with an edit: " .. vim.inspect(ca))
  result.code_action_title = ca.result[1].title
  result.code_action_kind = ca.result[1].kind
  local before = published[script_uri] or 0
  vim.lsp.util.apply_workspace_edit(ca.result[1].edit, client.offset_encoding)
  result.script_after_fix = vim.api.nvim_buf_get_lines(script, 0, -1, false)
  -- Neovim sends didChange; the server checks again and publishes no Warning any more.
  wait_for(10000, "diagnostics after the fix", function()
    return (published[script_uri] or 0) > before and #vim.diagnostic.get(script) == 0
  end)
  result.script_diagnostics_after_fix = diagnostics_of(script)
  local again = client.request_sync("textDocument/codeAction", {
    textDocument = { uri = script_uri },
    range = { start = { line = line + 1, character = 0 }, ["end"] = { line = line + 1, character = 0 } },
    context = { diagnostics = {} },
  }, 10000, script)
  result.code_actions_after_fix = again and again.result and #again.result or -1

  client.stop()
  wait_for(5000, "the server to stop", function() return client.is_stopped() end)
  result.ok = true
end

local ok, err = pcall(main)
if not ok then result.error = tostring(err) end
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("DENPEX_OUT") or "result.json")
if ok then vim.cmd("qall!") else io.stderr:write("FAIL: " .. tostring(err) .. "\n"); vim.cmd("cquit 2") end
