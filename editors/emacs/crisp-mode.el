;;; crisp-mode.el --- Major mode for Crisp, a Lisp for GPU kernels  -*- lexical-binding: t; -*-

;; Copyright (c) 2025 The Crisp authors.  MIT licence (see LICENSE).

;;; Commentary:

;; A major mode for .crisp files, derived from `lisp-mode' (indentation,
;; sexp motion and comments are Lisp's), that highlights Crisp's forms:
;; definitions (def-kernel, def-function, def-struct ...), control and
;; loop forms (let, dotimes, in-each-thread, loop-grid-stride ...), type
;; forms and scalar types, keywords (:global, :read-only ...) and the type
;; part of `name:type' annotations (A:float, v:(vector-type float ...)).
;; `crisp-compile' checks the current file with `crisp' and parses its
;; diagnostics (file:line:col: error[E0312]: ...) for `next-error'.
;;
;; Install: put this file on `load-path' and add (require 'crisp-mode).
;; The form lists follow editors/forms.txt.

;;; Code:

(require 'lisp-mode)
(require 'compile)

(defgroup crisp nil
  "Crisp, a Lisp for GPU kernels."
  :group 'languages)

(defcustom crisp-program "crisp"
  "The crisp compiler `crisp-compile' runs."
  :type 'string
  :group 'crisp)

(defconst crisp-definition-forms
  '("def-kernel" "def-kernel-exact" "def-function" "def-grid-function" "def-type"
    "def-struct" "def-enumeration" "def-derived-type" "set-derived" "def-const"
    "def-constant" "def-const-vec" "def-parameter" "def-setter" "def-constraint"
    "def-orchestration" "defmacro" "with-template-type" "with-struct-accessors")
  "Crisp forms that define something (the name after them is highlighted).")

(defconst crisp-control-forms
  '("let" "let*" "progn" "if" "when" "unless" "cond" "return" "result" "let-maybe"
    "or-else" "multiple-value-bind" "funcall" "declare" "set!" "inc!" "dec!"
    "dotimes" "dotimes+" "dec-times" "dec-times+" "dec-times-by-half" "dec-times-by-half+"
    "dec-times-by-factor" "dec-times-by-factor+" "do-times-by-doubling" "do-times-by-multiply"
    "do-power-step" "dec-power-step" "in-each-thread" "in-each-thread-in-group"
    "loop-grid-stride" "loop-grid-stride-linear" "loop-vector-stride" "loop-soa-stride"
    "when-thread-is" "abs-when-thread-is" "when-thread-in-group-is" "when-group-is"
    "when-global-linear-id-is" "when-local-linear-id-is" "local-barrier" "mem-fence"
    "c-t-assert" "c-t-output" "r-t-assert" "r-t-output" "target-has" "device-has")
  "Crisp control, loop and thread forms.")

(defconst crisp-type-forms
  '("vector-type" "tensor-view-type" "soa-vector-type" "const-vec-type"
    "identity-tensor-type" "maybe" "type-signature-of" "return-type-of"
    "bool" "char" "uchar" "short" "ushort" "int" "uint" "long" "ulong" "half"
    "float" "double" "voidp")
  "Crisp type forms and scalar types (hardware vectors: float4 ...).")

(defconst crisp-font-lock-keywords
  `(;; (def-kernel NAME ...): the form and the name it defines
    (,(concat "(\\(" (regexp-opt crisp-definition-forms) "\\)\\_>"
              "[ \t\n]*\\(\\(?:\\sw\\|\\s_\\)+\\)?")
     (1 font-lock-keyword-face)
     (2 font-lock-function-name-face nil t))
    (,(concat "(\\(" (regexp-opt crisp-control-forms) "\\)\\_>")
     (1 font-lock-keyword-face))
    (,(concat "\\_<\\(" (regexp-opt crisp-type-forms)
              "\\|\\(?:u?char\\|u?short\\|u?int\\|u?long\\|half\\|float\\|double\\)\\(?:2\\|3\\|4\\|8\\|16\\)\\)\\_>")
     (1 font-lock-type-face))
    ;; name:type annotations: the type after the colon (a name or a list head)
    ("\\_<\\(?:\\sw\\|\\s_\\)+?\\(:\\)(?\\(\\(?:\\sw\\|\\s_\\)+\\)"
     (2 font-lock-type-face))
    ;; keywords :global :read-only ...
    ("\\_<:\\(?:\\sw\\|\\s_\\)+" . font-lock-builtin-face)
    ;; #'function references
    ("#'\\(\\(?:\\sw\\|\\s_\\)+\\)" (1 font-lock-function-name-face))
    ;; +constants+
    ("\\_<\\+\\(?:\\sw\\|\\s_\\)+\\+\\_>" . font-lock-constant-face))
  "Highlighting for Crisp.")

;;;###autoload
(define-derived-mode crisp-mode lisp-mode "Crisp"
  "Major mode for Crisp, a Lisp for GPU kernels (derived from `lisp-mode')."
  (setq-local font-lock-defaults '(crisp-font-lock-keywords nil t))
  (setq-local comment-start ";; ")
  (dolist (f crisp-definition-forms)
    (put (intern f) 'lisp-indent-function 'defun))
  (setq-local compile-command
              (concat crisp-program " " (shell-quote-argument (or buffer-file-name "")))))

(defun crisp-compile ()
  "Check the current Crisp file with `crisp-program'.
The diagnostics go to a compilation buffer, for `next-error'."
  (interactive)
  (compile (concat crisp-program " " (shell-quote-argument buffer-file-name))))

;; crisp's diagnostics: FILE:LINE:COL: error[E0312]: ... / warning[...] / note:
(with-eval-after-load 'compile
  (add-to-list 'compilation-error-regexp-alist-alist
               '(crisp "^\\([^: \n]+\\.crisp\\):\\([0-9]+\\):\\([0-9]+\\): \\(?:error\\|\\(warning\\)\\|\\(note\\)\\)"
                       1 2 3 (4 . 5)))
  (add-to-list 'compilation-error-regexp-alist 'crisp))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.crisp\\'" . crisp-mode))

(provide 'crisp-mode)
;;; crisp-mode.el ends here
