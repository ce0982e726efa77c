/// The page's style sheet: iOS grouped cards on the system font stack, light and dark. No
/// framework, no web fonts.
enum PreviewStyle {
    static let css = """

        :root { --bg: #f2f2f7; --card: #fff; --text: #000; --secondary: #6c6c70; --separator: #d1d1d6;
          --accent: #007aff; --green: #34c759; --red: #ff3b30; --orange: #c93400; --fill: #e5e5ea; color-scheme: light; }
        html.dark { --bg: #000; --card: #1c1c1e; --text: #fff; --secondary: #98989f; --separator: #38383a;
          --accent: #0a84ff; --green: #30d158; --red: #ff453a; --orange: #ff9f0a; --fill: #2c2c2e; color-scheme: dark; }
        @media (prefers-color-scheme: dark) {
          html.auto { --bg: #000; --card: #1c1c1e; --text: #fff; --secondary: #98989f; --separator: #38383a;
            --accent: #0a84ff; --green: #30d158; --red: #ff453a; --orange: #ff9f0a; --fill: #2c2c2e; color-scheme: dark; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); -webkit-text-size-adjust: 100%;
          font: 17px/1.35 -apple-system, BlinkMacSystemFont, "SF Pro Text", "Helvetica Neue", system-ui, "Segoe UI", Roboto, sans-serif; }
        main { max-width: 430px; margin: 0 auto; padding: 16px 16px 32px; overflow-wrap: anywhere; }
        h1 { font-size: 28px; margin: 8px 0 2px; text-align: center; }
        h2 { font-size: 20px; margin: 0 0 8px; }
        h3 { font-size: 15px; margin: 16px 0 6px; color: var(--secondary); text-transform: uppercase; font-weight: 500; }
        p { margin: 4px 0; }
        a { color: var(--accent); text-decoration: none; }
        .secondary { color: var(--secondary); }
        .small, small { font-size: 13px; }
        .mono, code { font-family: ui-monospace, "SF Mono", Menlo, "DejaVu Sans Mono", monospace; font-size: 0.9em; }
        header.merchant { text-align: center; padding: 8px 0 16px; }
        .logo { display: block; height: 72px; width: auto; max-width: 100%; margin: 0 auto; border-radius: 16px; object-fit: contain; }
        .logo.missing { width: 72px; }
        .card { background: var(--card); border-radius: 12px; padding: 16px; margin: 0 0 16px; }
        .status { font-size: 22px; font-weight: 700; margin: 0; }
        .status.active { color: var(--text); }
        .status.done { color: var(--green); }
        .status.bad { color: var(--red); }
        .status-description { margin: 4px 0 8px; white-space: pre-line; }
        .prose { white-space: pre-line; text-align: left; }
        .progress { display: flex; gap: 4px; margin: 12px 0 8px; }
        .progress span { flex: 1; height: 6px; border-radius: 3px; background: var(--fill); }
        .progress .done { background: var(--green); }
        .progress.bad .done { background: var(--red); }
        .steps { list-style: none; padding: 0; margin: 0 0 8px; font-size: 15px; }
        .steps li { display: flex; justify-content: space-between; gap: 12px; padding: 2px 0; color: var(--secondary); }
        .steps li.done { color: var(--text); }
        .step-label { flex: none; white-space: nowrap; }
        .steps li.current .step-label { font-weight: 600; }
        .step-date { text-align: right; color: var(--secondary); }
        .rows { margin: 8px 0; }
        .row { display: flex; justify-content: space-between; gap: 12px; padding: 10px 0; border-top: 0.5px solid var(--separator); }
        .rows > .row:first-child { border-top: none; }
        .row .label { color: var(--secondary); flex: none; max-width: 45%; overflow-wrap: normal; }
        .row .value { text-align: right; flex: 1 1 auto; min-width: 0; }
        .row.text-row { flex-direction: column; gap: 4px; }
        .row.text-row .label { max-width: none; }
        .row.text-row .value { text-align: left; margin: 0; }
        .code-value { display: block; white-space: nowrap; overflow-wrap: normal; word-break: keep-all; overflow-x: auto; }
        .row.total { font-weight: 700; }
        .row.total .label { color: var(--text); }
        .payment-status { display: inline-block; font-size: 13px; font-weight: 600; padding: 2px 10px; border-radius: 10px;
          background: var(--fill); color: var(--secondary); margin: 0 0 8px; }
        .button { display: block; text-align: center; background: var(--accent); color: #fff; font-weight: 600;
          border-radius: 10px; padding: 11px; margin: 12px 0 0; }
        .secondary-button { background: var(--fill); color: var(--accent); }
        .items, .transactions { list-style: none; padding: 0; margin: 8px 0 0; }
        .item { display: flex; align-items: flex-start; gap: 12px; padding: 10px 0; border-top: 0.5px solid var(--separator); }
        .card > .items > .item:first-child { border-top: none; }
        .item-image { flex: none; width: 56px; height: 56px; border-radius: 10px; object-fit: cover; background: var(--fill); }
        .thumbs { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; margin: 12px 0 0; }
        .thumb { width: 40px; height: 40px; border-radius: 8px; object-fit: cover; background: var(--fill); }
        .thumb.missing { font-size: 0; }
        .thumbs-count { font-size: 15px; margin-left: 4px; }
        .item-text { flex: 1; min-width: 0; }
        .item-subtitle, .item-quantity { font-size: 15px; }
        .item-price { font-weight: 600; white-space: nowrap; }
        .barcode-tile { background: #fff; color: #000; border-radius: 12px; padding: 16px; text-align: center; }
        .barcode { display: block; max-width: 100%; height: auto; margin: 0 auto; }
        .barcode-text { margin: 8px 0 0; font-weight: 600; }
        .barcode-message { color: #3c3c43; font-size: 13px; }
        .provider { text-align: center; margin-top: 12px; }
        .provider-logo { height: 32px; width: auto; }
        html.light .only-dark, html.dark .only-light, html.auto .only-dark { display: none; }
        @media (prefers-color-scheme: dark) { html.auto .only-dark { display: inline; } html.auto .only-light { display: none; } }
        .add-to-wallet { display: block; text-align: center; background: #000; color: #fff; font-weight: 600; border-radius: 10px;
          padding: 12px; margin: 0 0 16px; }
        html.dark .add-to-wallet { background: #fff; color: #000; }
        .add-to-wallet-badge { display: block; margin: 0 auto 16px; width: max-content; max-width: 100%; }
        .add-to-wallet-badge img { display: block; height: 48px; width: auto; max-width: 100%; }
        .open-in-safari { text-align: center; font-size: 15px; margin: 0 0 8px; padding: 8px 12px; border-radius: 10px;
          background: var(--card); color: var(--text); }
        @media (prefers-color-scheme: dark) { html.auto .add-to-wallet { background: #fff; color: #000; } }
        .languages { text-align: center; font-size: 13px; color: var(--secondary); margin: 0 0 8px; }
        .findings-none { text-align: center; font-size: 13px; color: var(--green); margin: 0 0 8px; }
        .findings-list summary { cursor: pointer; }
        .findings-list ol { margin: 8px 0 0; padding-left: 20px; font-size: 14px; }
        .findings-list li { margin: 4px 0; }
        .findings-list .where { color: var(--secondary); }
        .finding { font-size: 13px; border-left: 3px solid var(--orange); padding: 4px 8px; margin: 6px 0; background: var(--fill); border-radius: 4px; text-align: left; }
        .finding.error, .findings-list li.error::marker { border-color: var(--red); color: var(--red); }
        .finding.info { border-color: var(--accent); }
        .finding .rule { font-weight: 600; }
        .finding.repeated { padding: 2px 8px; margin: 4px 0; }
        .findings-list .count { font-weight: 600; }
        .transaction .label { max-width: 70%; }
        .missing { display: flex; align-items: center; justify-content: center; flex-direction: column; text-align: center;
          font-size: 10px; color: var(--red); border: 1.5px dashed var(--red); background: transparent; }
        .logo.missing { font-size: 12px; height: 72px; }

        """
}
