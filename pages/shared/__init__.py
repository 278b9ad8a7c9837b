"""What the pages share, by concern (a folder of its own: Streamlit would take a module of pages/ for a page).
"""
