from posemb_cli.cli.app import main

main()
